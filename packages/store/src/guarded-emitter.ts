/**
 * An event emitter that consumers' listeners cannot disturb: a listener that throws is reported
 * through the `error` event (or rethrown outside the emit when nobody can be told) and the other
 * listeners still get every event.
 */
import { callGuarded, ListenerError } from '@ingresskit/task-queue';
import { EventEmitter } from 'eventemitter3';

/** Events a guarded emitter can carry: any, as long as `error` accepts a ListenerError. */
export interface GuardableEvents {
  error: (error: ListenerError) => void;
}

type Listener = (...args: unknown[]) => void;

/**
 * Holds the listeners of `Events` and guards each one. Listeners are called with `this` set to
 * `owner`, as if they had been added to the owner itself.
 */
export class GuardedEmitter<Events extends GuardableEvents> {
  /** Calls every listener of `event` with `args`, in the order they were added. */
  readonly emit: EventEmitter<Events>['emit'];
  private readonly emitter = new EventEmitter<Events>();
  private readonly guards = new Map<PropertyKey, WeakMap<object, Listener>>();

  constructor(private readonly owner: object) {
    // Bound rather than wrapped: a wrapper would gather every event's arguments into a new array.
    this.emit = this.emitter.emit.bind(this.emitter);
  }

  /** Adds a listener; a throw from it is reported, never passed on to the emitter of the event. */
  on<E extends EventEmitter.EventNames<Events>>(
    event: E,
    listener: EventEmitter.EventListener<Events, E>,
  ): void {
    this.emitter.on(event, this.guard(event, listener), this.owner);
  }

  /** Adds a listener for the next `event` only. */
  once<E extends EventEmitter.EventNames<Events>>(
    event: E,
    listener: EventEmitter.EventListener<Events, E>,
  ): void {
    this.emitter.once(event, this.guard(event, listener), this.owner);
  }

  /** Removes a listener (all of `event` when none is given); a listener never added is ignored. */
  off<E extends EventEmitter.EventNames<Events>>(
    event: E,
    listener?: EventEmitter.EventListener<Events, E>,
  ): void {
    const guarded = listener === undefined ? undefined : this.guards.get(event)?.get(listener);
    if (listener !== undefined && guarded === undefined) return;
    this.emitter.off(event, guarded as EventEmitter.EventListener<Events, E> | undefined);
  }

  /**
   * The one wrapper of `listener` for `event`, so that `off` finds what `on` and `once` added: a
   * throw reaches the `error` listeners instead of cutting the emit short.
   */
  private guard<E extends EventEmitter.EventNames<Events>>(
    event: E,
    listener: object,
  ): EventEmitter.EventListener<Events, E> {
    let byListener = this.guards.get(event);
    if (byListener === undefined) {
      byListener = new WeakMap();
      this.guards.set(event, byListener);
    }
    let guarded = byListener.get(listener);
    if (guarded === undefined) {
      // A throw from an `error` listener has nowhere left to go but out, as an uncaught exception.
      const report = event === 'error' ? undefined : (cause: unknown) => this.reportListenerError(cause);
      guarded = function (this: unknown, ...args: unknown[]) {
        callGuarded(() => (listener as Listener).apply(this, args), report);
      };
      byListener.set(listener, guarded);
    }
    return guarded as EventEmitter.EventListener<Events, E>;
  }

  private reportListenerError(cause: unknown): void {
    // Every Events has an `error` event that takes a ListenerError; the generic type cannot show it.
    const emitter = this.emitter as unknown as EventEmitter<GuardableEvents>;
    // Nobody can be told: callGuarded rethrows it outside the emitter's loop.
    if (emitter.listenerCount('error') === 0) throw cause;
    emitter.emit('error', new ListenerError('a store event listener', { cause }));
  }
}
