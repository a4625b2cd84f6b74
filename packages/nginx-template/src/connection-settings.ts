/**
 * The options of client connections and TLS that are checked apart from settings.ts: the PROXY
 * protocol on every listener, the ECDH curves and the DH parameters file nginx.conf names.
 */
import { createHash } from 'node:crypto';
import { InvalidRenderOptionsError } from './errors.js';

/** Curve names separated by colons (at most 32), as ssl_ecdh_curve takes them. */
export const ECDH_CURVE_LIST = /^[A-Za-z0-9_-]{1,64}(?::[A-Za-z0-9_-]{1,64}){0,31}$/;

/** A DH PARAMETERS PEM block, alone. */
const DH_PARAMETERS_PEM =
  /^-----BEGIN DH PARAMETERS-----\r?\n[A-Za-z0-9+/=\r\n]{100,4096}-----END DH PARAMETERS-----\r?\n?$/;

/** The name of a DH parameters file in the prefix: it names its content, so it never changes. */
export const DH_PARAM_FILE = /^certs\/dhparam-[0-9a-f]{64}\.pem$/;

/** The DH parameters nginx.conf names, with the file they are written to (relative to the prefix). */
export interface DhParamSettings {
  path: string;
  pem: string;
}

/** Checks ssl_ecdh_curve's value; undefined for none or `auto` (nginx's default). */
export function checkSslEcdhCurve(curves: unknown): string | undefined {
  if (curves === undefined || curves === 'auto') return undefined;
  if (typeof curves !== 'string' || !ECDH_CURVE_LIST.test(curves))
    throw new InvalidRenderOptionsError(
      'sslEcdhCurve',
      `must be curve names of A-Z a-z 0-9 _ - separated by colons (got ${JSON.stringify(curves)})`,
    );
  return curves;
}

/** Checks the DH parameters PEM and names its file by its hash. */
export function checkSslDhParam(pem: unknown): DhParamSettings | undefined {
  if (pem === undefined) return undefined;
  const trimmed = typeof pem === 'string' ? `${pem.trim()}\n` : undefined;
  if (trimmed === undefined || !DH_PARAMETERS_PEM.test(trimmed))
    throw new InvalidRenderOptionsError('sslDhParamPem', 'must be one DH PARAMETERS PEM block');
  const hash = createHash('sha256').update(trimmed).digest('hex');
  return { path: `certs/dhparam-${hash}.pem`, pem: trimmed };
}

/**
 * The files the settings make nginx.conf read besides itself (the DH parameters), by path
 * relative to the nginx prefix; write them before testing or loading the nginx.conf.
 */
export function listSettingsFiles(settings: { sslDhParam?: DhParamSettings }): {
  path: string;
  content: string;
}[] {
  const { sslDhParam } = settings;
  return sslDhParam === undefined ? [] : [{ path: sslDhParam.path, content: sslDhParam.pem }];
}
