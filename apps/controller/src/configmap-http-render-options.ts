/**
 * The controller ConfigMap's http-level settings as render options: the HttpOptions pass as they
 * are (one type, declared in @ingresskit/nginx-settings); the listen addresses (bind-address,
 * disable-ipv6) and the error log path become their own options.
 */
import type { RenderOptions } from '@ingresskit/nginx-template';
import type { ConfigMapHttpSettings } from '@ingresskit/ingress-routes';
import { isIP } from 'node:net';

/**
 * Render options of `http`, over the listen addresses nginx has without the ConfigMap (`base`;
 * empty or undefined: every IPv4 address).
 */
export function renderOptionsOfHttpSettings(
  http: ConfigMapHttpSettings,
  base: readonly string[] | undefined,
): Partial<RenderOptions> {
  const { bindAddresses, disableIpv6, errorLogPath, ...rest } = http;
  const options: Partial<RenderOptions> = Object.keys(rest).length === 0 ? {} : { http: rest };
  if (errorLogPath !== undefined) options.errorLogPath = errorLogPath;
  const addresses = listenAddressesOf(bindAddresses, disableIpv6, base ?? []);
  if (addresses !== undefined) options.listenAddresses = addresses;
  return options;
}

/**
 * As ingress-nginx: bind-address replaces every address, and its IPv6 ones are left out with
 * disable-ipv6. Unlike it, nginx listens on IPv4 only unless disable-ipv6 says "false" (as before
 * the key existed), which adds every IPv6 address where nginx listens on every address.
 */
function listenAddressesOf(
  bindAddresses: string[] | undefined,
  disableIpv6: boolean | undefined,
  base: readonly string[],
): string[] | undefined {
  if (bindAddresses !== undefined) {
    const kept =
      disableIpv6 === true ? bindAddresses.filter((address) => isIP(address) !== 6) : bindAddresses;
    return kept.length === 0 ? undefined : kept;
  }
  if (disableIpv6 === false && base.length === 0) return ['0.0.0.0', '::'];
  if (disableIpv6 === true && base.some((address) => isIP(address) === 6)) {
    const kept = base.filter((address) => isIP(address) !== 6);
    return kept.length === 0 ? undefined : kept;
  }
  return undefined;
}
