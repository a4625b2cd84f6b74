import { describe, expect, it } from 'vitest';
import { createManualClock } from './index.js';

describe('createManualClock', () => {
  it('fires due timers in due order with now() at each due time when advanced', async () => {
    const clock = createManualClock(1_000);
    const fired: string[] = [];
    clock.setTimer(30, () => fired.push(`b@${clock.now()}`));
    clock.setTimer(10, () => {
      fired.push(`a@${clock.now()}`);
      clock.setTimer(5, () => fired.push(`nested@${clock.now()}`));
    });
    clock.setTimer(31, () => fired.push(`late@${clock.now()}`));

    await clock.advance(30);
    expect(fired).toEqual(['a@1010', 'nested@1015', 'b@1030']);
    expect(clock.now()).toBe(1_030);
    expect(clock.pendingTimers()).toBe(1);
  });

  it('never fires a timer that was cancelled', async () => {
    const clock = createManualClock();
    let fired = false;
    const timer = clock.setTimer(10, () => {
      fired = true;
    });
    timer.cancel();
    await clock.advance(100);
    expect(fired).toBe(false);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('lets promise callbacks run between timers', async () => {
    const clock = createManualClock();
    const order: string[] = [];
    clock.setTimer(10, () => {
      void Promise.resolve().then(() => order.push('promise after first timer'));
      order.push('first timer');
    });
    clock.setTimer(10, () => order.push('second timer'));
    await clock.advance(10);
    expect(order).toEqual(['first timer', 'promise after first timer', 'second timer']);
  });
});
