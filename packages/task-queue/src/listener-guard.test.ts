import { describe, expect, it } from 'vitest';
import { callGuarded, ListenerError } from './index.js';

function nextUncaught(): Promise<unknown> {
  return new Promise((resolve) => process.once('uncaughtException', resolve));
}

describe('callGuarded', () => {
  it('passes a throw to report instead of the caller when a report is given', () => {
    const reported: unknown[] = [];
    expect(() =>
      callGuarded(
        () => {
          throw new Error('bug');
        },
        (error) => reported.push(error),
      ),
    ).not.toThrow();
    expect(reported).toEqual([new Error('bug')]);
  });

  it('rethrows outside the caller when nobody can be told', async () => {
    const uncaught = nextUncaught();
    expect(() =>
      callGuarded(() => {
        throw new Error('unheard');
      }),
    ).not.toThrow();
    await expect(uncaught).resolves.toEqual(new Error('unheard'));
  });

  it('rethrows the report’s own throw outside the caller when reporting fails too', async () => {
    const uncaught = nextUncaught();
    callGuarded(
      () => {
        throw new Error('first');
      },
      (cause) => {
        throw new ListenerError('an error listener', { cause });
      },
    );
    const error = (await uncaught) as ListenerError;
    expect(error).toBeInstanceOf(ListenerError);
    expect(error.message).toBe('an error listener threw');
    expect(error.code).toBe('ERR_LISTENER_FAILED');
  });

  it('does nothing more than call when the call does not throw', () => {
    let calls = 0;
    callGuarded(
      () => void calls++,
      () => expect.unreachable(),
    );
    expect(calls).toBe(1);
  });
});
