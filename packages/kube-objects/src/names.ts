/**
 * The grammars of Kubernetes names: each check returns `undefined` for a valid value, or a short
 * reason for a problem message.
 */

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Checks an RFC 1123 label (a namespace, or a Service name): lower case, at most 63 characters. */
export function checkDnsLabel(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return 'must be a non-empty string';
  if (value.length > 63) return 'must be at most 63 characters';
  if (!DNS_LABEL.test(value))
    return 'must be an RFC 1123 label (a-z, 0-9 and "-", starting and ending alphanumeric)';
  return undefined;
}

/** Checks an RFC 1123 subdomain (an object name): dot-separated labels, at most 253 characters. */
export function checkDnsSubdomain(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return 'must be a non-empty string';
  if (value.length > 253) return 'must be at most 253 characters';
  for (const label of value.split('.')) {
    if (label.length > 63 || !DNS_LABEL.test(label)) {
      return 'must be an RFC 1123 subdomain (lower-case labels of a-z, 0-9 and "-", joined by ".")';
    }
  }
  return undefined;
}

/** Checks an IANA_SVC_NAME (a named port): 1-15 of a-z 0-9 "-", with at least one letter. */
export function checkPortName(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return 'must be a non-empty string';
  if (value.length > 15 || !DNS_LABEL.test(value) || !/[a-z]/.test(value) || value.includes('--')) {
    return 'must be an IANA service name (1-15 of a-z, 0-9 and "-", with a letter)';
  }
  return undefined;
}

/** Whether `value` is an integer port number 1-65535. */
export function isPortNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65535;
}
