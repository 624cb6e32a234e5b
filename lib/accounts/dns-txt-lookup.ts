// TXT lookups for domain verification, through the configured DNS servers
// (DNS_RESOLVERS) or the system's. A name without the record (NXDOMAIN,
// NODATA) is an empty answer; a server that does not answer is an error, so
// the activity retries it rather than reporting "not published".
import { Resolver } from 'node:dns/promises';

export type TxtLookup = (name: string) => Promise<string[]>;

/** DNS error codes that mean "no such record", not "no answer". */
const ABSENT = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME']);

export function txtLookup(servers: string[], timeoutMs = 5_000): TxtLookup {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  if (servers.length) resolver.setServers(servers);
  return async (name) => {
    try {
      // A TXT record may be split in strings of up to 255 bytes: they are one value.
      return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
    } catch (err) {
      if (ABSENT.has((err as NodeJS.ErrnoException).code ?? '')) return [];
      throw err;
    }
  };
}
