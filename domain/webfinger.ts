// WebFinger (RFC 7033) issuer discovery as OpenID Connect Discovery 1.0 §2 uses it.
export const ISSUER_REL = 'http://openid.net/specs/connect/1.0/issuer';

export type AcctLookup = { kind: 'email'; email: string } | { kind: 'username'; username: string };

/**
 * Parses `acct:<user>@<host>`. A user is found by full email address, or by
 * username when <host> is the issuer's own host. Returns a reason on bad input.
 */
export function parseAcctResource(resource: string | undefined, issuerHost: string): { lookups: AcctLookup[] } | { error: string } {
  if (resource === undefined || resource === '') return { error: 'the resource parameter is required' };
  if (resource.length > 512) return { error: 'the resource parameter is too long' };
  const m = /^acct:([^@\s/?#]+)@([^@\s/?#]+)$/i.exec(resource);
  if (!m) return { error: 'resource must be an acct: URI of the form acct:user@host' };
  let user: string;
  try {
    user = decodeURIComponent(m[1]!).toLowerCase();
  } catch {
    return { error: 'resource has a malformed percent-encoding' };
  }
  const host = m[2]!.toLowerCase();
  const lookups: AcctLookup[] = [{ kind: 'email', email: `${user}@${host}` }];
  if (host === issuerHost.toLowerCase()) lookups.push({ kind: 'username', username: user });
  return { lookups };
}

export function webfingerDocument(resource: string, issuer: string, rels: string[]): { subject: string; links: { rel: string; href: string }[] } {
  const links = [{ rel: ISSUER_REL, href: issuer }];
  // RFC 7033 §4.3: `rel` filters the links; no `rel` means all of them.
  return { subject: resource, links: rels.length ? links.filter((l) => rels.includes(l.rel)) : links };
}
