/**
 * The addresses of the names ExternalName Services point at, resolved by the controller as its pod
 * resolves them (getaddrinfo: /etc/hosts, the cluster DNS and its search domains) and looked up
 * again every 30 s, as nginx's own resolver would. The routes are pinned to these addresses
 * (ingress-routes `pinExternalName`), so nginx connects only to addresses the backend address
 * policy let through: a tenant's DNS answer cannot point it at loopback or the metadata service.
 */
import { lookup } from 'node:dns/promises';
import type { NameResolution } from '@ingresskit/ingress-routes';
import type { Logger } from './logger.js';

/** Resolves a host name to its addresses; rejects when it does not resolve. */
export type LookupName = (hostname: string) => Promise<string[]>;

/** Resolves with the system resolver, IPv4 and IPv6. */
export const lookupWithSystemResolver: LookupName = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/** Options of {@link ExternalNames}. */
export interface ExternalNamesOptions {
  lookup?: LookupName;
  /** 30 s by default. */
  refreshMs?: number;
  /** Whether a route still uses the name; names no route uses are forgotten at the next refresh. */
  inUse: (hostname: string) => boolean;
  /** The resolution of these names changed (the first one included): their backends need pinning again. */
  onChange: (hostnames: string[]) => void;
  logger: Logger;
}

/** The addresses of the ExternalName Services' names, looked up again every 30 s. */
export class ExternalNames {
  readonly #options: ExternalNamesOptions;
  readonly #lookup: LookupName;
  readonly #resolutions = new Map<string, NameResolution | undefined>();
  readonly #timer: NodeJS.Timeout;

  constructor(options: ExternalNamesOptions) {
    this.#options = options;
    this.#lookup = options.lookup ?? lookupWithSystemResolver;
    this.#timer = setInterval(() => void this.#refresh(), options.refreshMs ?? 30_000).unref();
  }

  /**
   * The last resolution of `hostname`, or undefined while it is first being resolved (onChange
   * tells when it is done). From its first call on, the name is kept fresh.
   */
  resolution(hostname: string): NameResolution | undefined {
    if (!this.#resolutions.has(hostname)) {
      this.#resolutions.set(hostname, undefined);
      void this.#resolve([hostname]);
    }
    return this.#resolutions.get(hostname);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  async #refresh(): Promise<void> {
    for (const hostname of this.#resolutions.keys()) {
      if (!this.#options.inUse(hostname)) this.#resolutions.delete(hostname);
    }
    await this.#resolve([...this.#resolutions.keys()]);
  }

  async #resolve(hostnames: string[]): Promise<void> {
    const changed: string[] = [];
    await Promise.all(
      hostnames.map(async (hostname) => {
        const next = await this.#lookup(hostname).then(
          (addresses): NameResolution => ({ addresses: [...new Set(addresses)].sort() }),
          (error: unknown): NameResolution => ({ error: errorCode(error) }),
        );
        if (!this.#resolutions.has(hostname)) return;
        if (sameResolution(this.#resolutions.get(hostname), next)) return;
        this.#resolutions.set(hostname, next);
        changed.push(hostname);
      }),
    );
    if (changed.length === 0) return;
    this.#options.logger.debug({ hostnames: changed }, 'ExternalName addresses changed');
    this.#options.onChange(changed);
  }
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : String(error);
}

function sameResolution(a: NameResolution | undefined, b: NameResolution): boolean {
  if (a === undefined) return false;
  if ('error' in a || 'error' in b) return 'error' in a && 'error' in b && a.error === b.error;
  return (
    a.addresses.length === b.addresses.length && a.addresses.every((address, i) => address === b.addresses[i])
  );
}
