export { runCli, commands, formatUsage, formatCommandHelp } from './commands/index.js';
export { ExitCode, type Command, type CommandIo } from './commands/command.js';
export { Controller, type ControllerDependencies, type SyncSummary } from './controller.js';
export { parseServiceReference, resolveControllerConfig, type ControllerConfig } from './config.js';
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
export { runDemo, type DemoOptions, type DemoResult, type RouteCheck } from './demo.js';
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
  type ExplainedRoute,
  type IngressExplanation,
} from './explain.js';
export { viewOfObjects, viewOfSnapshot, type ClusterObjects, type ClusterView } from './cluster-view.js';
export { IngressRouting, routeAll } from './ingress-routing.js';
export type { IngressRoutingOptions } from './ingress-routing-options.js';
export type { IngressVerdict } from './ingress-verdict.js';
export { createControllerMetrics, type ControllerMetrics } from './metrics.js';
export { createLogger, type Logger } from './logger.js';
export { NginxDataPlane, type DataPlaneFlush, type NginxDataPlaneOptions } from './data-plane.js';
export { listenersOf, nginxRenderOptions } from './data-plane-render-options.js';
export {
  NginxProcess,
  NGINX_INSTALL_COMMAND,
  isNginxAvailable,
  resolveNginxBinary,
  testNginxConfig,
} from './nginx-process.js';
export {
  ChecksumMismatchError,
  DataPlaneFullError,
  DataPlanePushError,
  ControllerConfigError,
  FlagError,
  NginxConfigTestError,
  NginxReloadError,
  NginxStartError,
} from './errors.js';
