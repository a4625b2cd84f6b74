import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFakeClock, systemClock, TimerLoopError } from './index.js';

describe('createFakeClock', () => {
  it('fires due timers in due order when time advances past them', () => {
    const clock = createFakeClock({ now: 100 });
    const fired: string[] = [];
    clock.setTimer(30, () => fired.push(`b@${clock.now()}`));
    clock.setTimer(10, () => fired.push(`a@${clock.now()}`));
    clock.setTimer(50, () => fired.push(`c@${clock.now()}`));

    expect(clock.advance(30)).toBe(2);
    expect(fired).toEqual(['a@110', 'b@130']);
    expect(clock.now()).toBe(130);
    expect(clock.pendingTimers()).toBe(1);
  });

  it('lists how long each pending timer still waits, soonest first, when some fired or were cancelled', () => {
    const clock = createFakeClock();
    clock.setTimer(300, () => undefined);
    clock.setTimer(100, () => undefined);
    clock.setTimer(200, () => undefined).cancel();
    clock.setTimer(50, () => undefined);
    clock.advance(60);
    expect(clock.pendingDelays()).toEqual([40, 240]);
  });

  it('fires timers due at the same time in creation order', () => {
    const clock = createFakeClock();
    const fired: number[] = [];
    for (const id of [1, 2, 3]) clock.setTimer(5, () => fired.push(id));
    clock.advance(5);
    expect(fired).toEqual([1, 2, 3]);
  });

  it('fires timers scheduled by a timer when they fall inside the same advance', () => {
    const clock = createFakeClock();
    const fired: number[] = [];
    clock.setTimer(10, () => {
      fired.push(clock.now());
      clock.setTimer(10, () => fired.push(clock.now()));
      clock.setTimer(100, () => fired.push(clock.now()));
    });
    clock.advance(25);
    expect(fired).toEqual([10, 20]);
    expect(clock.pendingTimers()).toBe(1);
  });

  it('does not fire a timer when it is cancelled', () => {
    const clock = createFakeClock();
    const callback = vi.fn();
    const timer = clock.setTimer(10, callback);
    timer.cancel();
    timer.cancel();
    clock.advance(20);
    expect(callback).not.toHaveBeenCalled();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('treats negative and NaN delays as zero', () => {
    const clock = createFakeClock();
    const callback = vi.fn();
    clock.setTimer(-5, callback);
    clock.setTimer(Number.NaN, callback);
    clock.advance(0);
    expect(callback).toHaveBeenCalledTimes(2);
  });

  it('throws TimerLoopError when a timer keeps rescheduling itself at the same time', () => {
    const clock = createFakeClock({ maxTimersPerAdvance: 50 });
    const loop = (): void => void clock.setTimer(0, loop);
    clock.setTimer(0, loop);
    expect(() => clock.advance(1)).toThrow(TimerLoopError);
  });

  it('never moves time backwards when a timer advances the clock itself', () => {
    const clock = createFakeClock();
    const seen: number[] = [];
    clock.setTimer(10, () => clock.advance(100));
    clock.setTimer(20, () => seen.push(clock.now()));
    clock.advance(30);
    expect(seen).toEqual([20]);
    expect(clock.now()).toBe(110);
  });

  it('rejects a negative step', () => {
    expect(() => createFakeClock().advance(-1)).toThrow(/ms ≥ 0/);
  });

  it('lets promise callbacks schedule timers at the right time when advancing asynchronously', async () => {
    const clock = createFakeClock();
    const fired: number[] = [];
    const sleep = (ms: number) => new Promise<void>((resolve) => clock.setTimer(ms, resolve));
    const run = (async () => {
      await sleep(10);
      fired.push(clock.now());
      await sleep(10);
      fired.push(clock.now());
    })();

    expect(await clock.advanceAsync(30)).toBe(2);
    await run;
    expect(fired).toEqual([10, 20]);
  });
});

describe('systemClock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reads a time close to the wall clock', () => {
    expect(Math.abs(systemClock.now() - Date.now())).toBeLessThan(60_000);
  });

  it('chains timers when the delay is longer than setTimeout allows', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const callback = vi.fn();
    systemClock.setTimer(3_000_000_000, callback);
    vi.advanceTimersByTime(2_147_483_647);
    expect(callback).not.toHaveBeenCalled();
    vi.advanceTimersByTime(3_000_000_000 - 2_147_483_647);
    expect(callback).toHaveBeenCalledOnce();
  });

  it('does not fire a timer when it is cancelled', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const callback = vi.fn();
    systemClock.setTimer(10, callback).cancel();
    vi.advanceTimersByTime(20);
    expect(callback).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });
});
