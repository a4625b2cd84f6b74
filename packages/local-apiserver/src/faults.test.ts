import { describe, expect, it } from 'vitest';
import { RequestFaults } from './faults.js';

const get = { method: 'GET', path: '/api/v1/pods', isWatch: false };
const watch = { method: 'GET', path: '/api/v1/pods?watch=true', isWatch: true };

describe('RequestFaults', () => {
  it('fails exactly the given number of matching requests with a Status', () => {
    const faults = new RequestFaults();
    faults.addFailures(2, 503, { match: { watch: true } });
    expect(faults.takeFailure(get)).toBeUndefined();
    expect(faults.takeFailure(watch)).toMatchObject({
      kind: 'Status',
      code: 503,
      reason: 'ServiceUnavailable',
    });
    expect(faults.takeFailure(watch)).toBeDefined();
    expect(faults.takeFailure(watch)).toBeUndefined();
  });

  it('matches on method and path, and clear() forgets everything', () => {
    const faults = new RequestFaults();
    faults.addFailures(1, 500, { match: { method: 'post', path: /configmaps/ } });
    faults.latencyMs = 10;
    expect(faults.takeFailure(get)).toBeUndefined();
    expect(
      faults.takeFailure({ method: 'POST', path: '/api/v1/namespaces/x/configmaps', isWatch: false }),
    ).toMatchObject({ code: 500 });
    faults.addFailures(1, 429, { message: 'slow down' });
    faults.clear();
    expect(faults.takeFailure(get)).toBeUndefined();
    expect(faults.latencyMs).toBe(0);
  });
});
