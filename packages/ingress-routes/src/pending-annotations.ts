import { type IngressAnnotations } from './annotation-types.js';
/**
 * State that annotations working together (a redirect and its code, enable-cors and its options)
 * keep aside while the parse loop runs, so the parsed annotations hold only what they combine into.
 */

/** What a family's parsers noted for one parse; `of` creates it, `peek` reads it without creating. */
export interface PendingStore<T extends object> {
  /** The state noted for `into`, created empty on first use. */
  of(into: IngressAnnotations): T;
  /** The state noted for `into`, or undefined when no parser noted anything. */
  peek(into: IngressAnnotations): T | undefined;
}

/** Creates a store keyed weakly by the annotations being parsed, so a finished parse leaves nothing behind. */
export function createPendingStore<T extends object>(): PendingStore<T> {
  const pending = new WeakMap<IngressAnnotations, T>();
  return {
    of(into) {
      let state = pending.get(into);
      if (state === undefined) pending.set(into, (state = {} as T));
      return state;
    },
    peek: (into) => pending.get(into),
  };
}
