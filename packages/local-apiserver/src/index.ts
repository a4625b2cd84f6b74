export {
  startLocalApiServer,
  type LocalApiServer,
  type LocalApiServerOptions,
  type LocalApiServerStats,
} from './server.js';
export type { ApiServerFaults, FailureOptions, RequestMatcher } from './faults.js';
export {
  buildKubeconfigYaml,
  createKubeConfig,
  writeKubeconfigFile,
  type KubeconfigOptions,
} from './kubeconfig.js';
export { parseManifests, readManifestDirectory, type ManifestInput } from './manifests.js';
export {
  ApiStatusError,
  ManifestError,
  PatchError,
  SelectorSyntaxError,
  ServerStateError,
  buildFailureStatus,
  buildInvalidStatus,
  buildNotFoundStatus,
  buildConflictStatus,
  buildAlreadyExistsStatus,
  type FieldError,
  type KubeStatus,
  type StatusCause,
  type StatusDetails,
} from './errors.js';
export { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from './patch.js';
export { matchesLabels, parseLabelSelector, type LabelRequirement } from '@ingresskit/kube-objects/pure';
export { matchesFields, parseFieldSelector, type FieldRequirement } from './field-selector.js';
export { isMicroTime } from './micro-time.js';
export type { KubeObject, ObjectMeta } from './objects.js';
