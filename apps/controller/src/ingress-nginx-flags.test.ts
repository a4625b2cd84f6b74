import { describe, expect, it } from 'vitest';
import { runFlagNames } from './flags.js';
import { INGRESS_NGINX_FLAGS } from './ingress-nginx-flags.js';

describe('INGRESS_NGINX_FLAGS', () => {
  it('says of each ingress-nginx flag either how we take it or why not, and only ours are supported', () => {
    const names = INGRESS_NGINX_FLAGS.map((flag) => flag.name);
    expect(names).toEqual([...new Set(names)].sort());
    for (const flag of INGRESS_NGINX_FLAGS) {
      expect([flag.supported, flag.unsupported].filter((entry) => entry !== undefined)).toHaveLength(1);
      expect({ flag: flag.name, ours: runFlagNames.includes(flag.name as never) }).toEqual({
        flag: flag.name,
        ours: flag.supported !== undefined,
      });
    }
  });
});
