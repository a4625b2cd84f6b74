export { RoutingTable, type DataBudgetOptions, type RoutingTableOptions } from './routing-table.js';
export type {
  ContributionSink,
  ContributionSource,
  SourceEntry,
  SourceProblems,
} from './contribution-source.js';
export type { BackendView, SourceView } from './backend-view.js';
export {
  serviceKeyOfBackend,
  type BackendProblem,
  type BackendResolution,
  type ExternalNamePin,
  type ServiceBackendResolve,
} from './backend-resolver.js';
export { countEndpoints, type ContributionData, type DataMeasure } from './contribution-budget.js';
export type { NamespaceDataBudgetOptions, ObjectData } from './namespace-data-budget.js';
export type { RefusedRoute } from './route-refusals.js';
export { problemOfNote } from './source-problems.js';
