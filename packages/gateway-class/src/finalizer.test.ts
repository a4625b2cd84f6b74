import { describe, expect, it } from 'vitest';
import { GATEWAY_EXISTS_FINALIZER, withGatewayExistsFinalizer } from './index.js';

describe('withGatewayExistsFinalizer', () => {
  it('adds the finalizer once and keeps the others', () => {
    const added = withGatewayExistsFinalizer(['other'], true);
    expect(added).toEqual(['other', GATEWAY_EXISTS_FINALIZER]);
    expect(withGatewayExistsFinalizer(added, true)).toEqual(added);
  });

  it('removes only the gateway-exists finalizer', () => {
    expect(withGatewayExistsFinalizer(['other', GATEWAY_EXISTS_FINALIZER], false)).toEqual(['other']);
  });
});
