/** The configuration checksum: what nginx.conf is rendered from, hashed. */
import { createHash } from 'node:crypto';
import type { Configuration } from './types.js';

/**
 * SHA-256 (hex) of the parts of a configuration that reach nginx.conf: servers and locations,
 * backend names and ExternalName targets, certificate file names. Endpoints are left out (they
 * travel through the Lua endpoint), and so is key material (file names already hash it).
 */
export function computeConfigurationChecksum(configuration: Omit<Configuration, 'checksum'>): string {
  const rendered = {
    defaultServer: configuration.defaultServer,
    servers: configuration.servers,
    backends: configuration.backends.map(({ name, externalName, port }) => ({ name, externalName, port })),
    certificates: configuration.certificates.map((certificate) => certificate.fileName),
  };
  return createHash('sha256').update(JSON.stringify(rendered)).digest('hex');
}
