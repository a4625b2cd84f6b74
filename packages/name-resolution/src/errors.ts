/**
 * A host name has no address: not in /etc/hosts and, through the search list, NXDOMAIN or no
 * record everywhere. Its code is the one Node's resolver gives, so messages read alike.
 */
export class NameNotFoundError extends Error {
  override readonly name = 'NameNotFoundError';
  readonly code = 'ENOTFOUND' as const;
}
