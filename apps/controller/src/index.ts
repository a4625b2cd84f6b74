export { runCli, commands, formatUsage, formatCommandHelp } from './commands/index.js';
export { ExitCode, type Command, type CommandIo } from './commands/command.js';
export { Controller, type ControllerDependencies, type SyncSummary } from './controller.js';
export { resolveControllerConfig, type ControllerConfig } from './config.js';
export {
  classFlagNames,
  defaultFlags,
  envVarOf,
  formatFlagsHelp,
  formatRunFlagsHelp,
  parseCommandLine,
  parseRunFlags,
  runFlagNames,
  type CommandLineSpec,
  type FlagName,
  type Flags,
  type ParsedCommandLine,
} from './flags.js';
export {
  runDemo,
  NGINX_INSTALL_COMMAND,
  type DemoOptions,
  type DemoResult,
  type RouteCheck,
} from './demo.js';
export {
  EventRecorder,
  createEventsApiSink,
  dedupKey,
  type EventReport,
  type EventSink,
  type EventSubject,
} from './events.js';
export {
  explainIngress,
  formatExplanation,
  formatRoute,
  listRoutes,
  type IngressExplanation,
  type ServedRoute,
} from './explain.js';
export {
  planSync,
  parseServiceReference,
  type ClusterObjects,
  type SyncPlan,
  type SyncPlanOptions,
  type IngressVerdict,
} from './sync-plan.js';
export { createControllerMetrics, type ControllerMetrics } from './metrics.js';
export { createLogger, type Logger } from './logger.js';
export { NginxRuntime, type ApplyResult, type NginxRuntimeOptions } from './nginx-runtime.js';
export { NginxProcess, isNginxAvailable, resolveNginxBinary, testNginxConfig } from './nginx-process.js';
export {
  BackendsUpdateError,
  ChecksumMismatchError,
  ControllerConfigError,
  FlagError,
  NginxConfigTestError,
  NginxReloadError,
  NginxStartError,
} from './errors.js';
