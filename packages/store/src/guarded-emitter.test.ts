import { describe, expect, it } from 'vitest';
import { ListenerError } from './errors.js';
import { GuardedEmitter } from './guarded-emitter.js';

interface TestEvents {
  tick: (value: number) => void;
  error: (error: Error) => void;
}

describe('GuardedEmitter', () => {
  it('reports a throwing listener through error and still calls the others when one throws', () => {
    const emitter = new GuardedEmitter<TestEvents>({});
    const seen: number[] = [];
    const errors: Error[] = [];
    emitter.on('tick', () => {
      throw new Error('bug');
    });
    emitter.on('tick', (value) => seen.push(value));
    emitter.on('error', (error) => errors.push(error));
    emitter.emit('tick', 1);
    expect(seen).toEqual([1]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(ListenerError);
    expect((errors[0] as ListenerError).cause).toEqual(new Error('bug'));
  });

  it('rethrows outside the emit when nobody listens for error', async () => {
    const emitter = new GuardedEmitter<TestEvents>({});
    const thrown = new Promise<unknown>((resolve) => process.once('uncaughtException', resolve));
    emitter.on('tick', () => {
      throw new Error('unheard');
    });
    expect(() => emitter.emit('tick', 1)).not.toThrow();
    await expect(thrown).resolves.toEqual(new Error('unheard'));
  });

  it('removes a listener added with on or once when off is given the same function', () => {
    const emitter = new GuardedEmitter<TestEvents>({});
    const seen: number[] = [];
    const listener = (value: number) => seen.push(value);
    emitter.on('tick', listener);
    emitter.once('tick', listener);
    emitter.off('tick', listener);
    emitter.off('tick', () => undefined);
    emitter.emit('tick', 1);
    expect(seen).toEqual([]);
  });

  it('calls listeners with this set to the owner when they are plain functions', () => {
    const owner = {};
    const emitter = new GuardedEmitter<TestEvents>(owner);
    const selves: unknown[] = [];
    emitter.once('tick', function (this: unknown) {
      selves.push(this);
    });
    emitter.emit('tick', 1);
    emitter.emit('tick', 2);
    expect(selves).toEqual([owner]);
    expect(selves[0]).toBe(owner);
  });
});
