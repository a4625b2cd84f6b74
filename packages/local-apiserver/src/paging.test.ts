import { describe, expect, it } from 'vitest';
import { decodeContinueToken, encodeContinueToken, namespaceRange, planListRead } from './paging.js';
import { catchStatus } from './registry-fixtures.js';

const coversAll = () => true;

describe('planListRead', () => {
  it('reads the latest state for an unset or "0" resourceVersion and for NotOlderThan', () => {
    expect(planListRead({}, 50, coversAll)).toEqual({ atRv: 50, startKey: undefined, limit: 0 });
    expect(planListRead({ resourceVersion: '0', limit: 5 }, 50, coversAll)).toEqual({
      atRv: 50,
      startKey: undefined,
      limit: 5,
    });
    expect(planListRead({ resourceVersion: '10' }, 50, coversAll).atRv).toBe(50);
    expect(
      planListRead({ resourceVersion: '10', resourceVersionMatch: 'NotOlderThan' }, 50, coversAll).atRv,
    ).toBe(50);
  });

  it('reads exactly at N when a limit is set or Exact is asked for', () => {
    expect(planListRead({ resourceVersion: '10', limit: 2 }, 50, coversAll).atRv).toBe(10);
    expect(planListRead({ resourceVersion: '10', resourceVersionMatch: 'Exact' }, 50, coversAll).atRv).toBe(
      10,
    );
    expect(
      catchStatus(() => planListRead({ resourceVersion: '10', limit: 2 }, 50, (rv) => rv > 20)),
    ).toMatchObject({ code: 410 });
  });

  it('continues at the token resourceVersion and refuses a continue with a resourceVersion', () => {
    const token = encodeContinueToken(7, 'default/b\u0000');
    expect(planListRead({ continue: token, limit: 1 }, 50, coversAll)).toEqual({
      atRv: 7,
      startKey: 'default/b\u0000',
      limit: 1,
    });
    expect(
      catchStatus(() => planListRead({ continue: token, resourceVersion: '7' }, 50, coversAll)),
    ).toMatchObject({
      code: 400,
      message: 'specifying resource version is not allowed when using continue',
    });
    expect(catchStatus(() => planListRead({ continue: token }, 50, () => false))).toMatchObject({
      code: 410,
      reason: 'Expired',
    });
  });

  it.each([
    [{ resourceVersionMatch: 'Exact' }, 422],
    [{ resourceVersion: '0', resourceVersionMatch: 'Exact' }, 422],
    [{ resourceVersion: '1', resourceVersionMatch: 'Sometimes' }, 422],
    [{ resourceVersion: 'abc' }, 400],
    [{ resourceVersion: '99' }, 504],
  ])('rejects %j with %i', (query, code) => {
    expect(catchStatus(() => planListRead(query, 50, coversAll)).code).toBe(code);
  });
});

describe('decodeContinueToken', () => {
  it('round-trips a token and rejects garbage with 400', () => {
    expect(decodeContinueToken(encodeContinueToken(3, 'a'))).toEqual({ rv: 3, start: 'a' });
    expect(catchStatus(() => decodeContinueToken('not-a-token'))).toMatchObject({ code: 400 });
  });
});

describe('namespaceRange', () => {
  it('finds the keys of one namespace without matching a longer namespace name', () => {
    const keys = ['a-b/x', 'a/x', 'a/y', 'ab/z'];
    expect(namespaceRange(keys, 'a')).toEqual([1, 3]);
    expect(namespaceRange(keys, undefined)).toEqual([0, 4]);
    expect(namespaceRange(keys, 'zz')).toEqual([4, 4]);
  });
});
