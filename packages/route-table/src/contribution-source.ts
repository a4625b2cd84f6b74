/**
 * What plugs a kind of object into the route table: a contribution source (Ingresses, Gateway
 * API) maps a change to the keys it affects, brings the contributions of those keys up to date in
 * the table, and reports the problems of its objects. The table does the rest for every source
 * alike: backends, refusals, host ownership and the budgets.
 */
import type { Problem, RouteContribution, SourceRef } from '@ingresskit/route-model';
import type { BackendView } from './backend-view.js';

/** What a source sets for one of its objects in a batch (see ContributionSink.update). */
export interface SourceEntry {
  /** The object; its source key (route-model's `sourceKey`) is the entry's key. */
  source: SourceRef;
  /** What it contributes; undefined when the object is known but left out whole (a problem says why). */
  contribution: RouteContribution | undefined;
  /**
   * Whether this is a new version of the object since it was last set: the routes the data plane
   * refused of the old one are tried again. True for an object set for the first time.
   */
  isNewVersion: boolean;
  /**
   * How many paths the object counts against its namespace's path budget (an Ingress's
   * `countIngressPaths`); not counted when undefined.
   */
  paths?: number | undefined;
  /** When the object was created, in ms (the oldest come first in every budget); 0 when unknown. */
  createdAt?: number | undefined;
}

/** What the route table holds against a source's object (RoutingTable.problemsOf). */
export interface SourceProblems {
  /** A budget that leaves `object` out, its backends that answer 503, assembly notes, refusals. */
  problemsOf(object: SourceRef): Problem[];
}

/** The part of the route table a source writes to. */
export interface ContributionSink<View extends BackendView = BackendView> {
  /**
   * Sets these objects' contributions in one batch: the budgets are settled once, then each is
   * served or left out as they decide.
   */
  update(view: View, entries: Iterable<SourceEntry>): void;
  /** Withdraws everything the object with source key `key` contributes, and forgets it. */
  withdraw(view: View, key: string): void;
}

/**
 * A kind of object that contributes routes. `Change` is what a watch reports (a store event);
 * keys are the source's own (an Ingress's `namespace/name`, a Gateway's source key, ...).
 */
export interface ContributionSource<View extends BackendView, Change> {
  /** The keys `change` affects; empty when it changes nothing this source reads. */
  keysOf(change: Change): Iterable<string>;
  /** Brings the contributions of the objects with `keys` up to `view` in `table`. */
  update(view: View, keys: Iterable<string>, table: ContributionSink<View>): void;
  /** Everything wrong with the object `key` as of the last commit: its own problems and `table`'s. */
  problemsOf(key: string, table: SourceProblems): Problem[];
}
