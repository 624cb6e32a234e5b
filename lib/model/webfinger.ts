// WebFinger (RFC 7033) issuer discovery as OpenID Connect Discovery 1.0 §2 uses it.
// Every account on this issuer's host has the same issuer, so the answer does
// not depend on whether the account exists: the endpoint looks nothing up and
// tells nobody which accounts exist.
export const ISSUER_REL = 'http://openid.net/specs/connect/1.0/issuer';

/**
 * Reads `acct:<user>@<host>`: whether <host> is the issuer's own host (then
 * the issuer answers for it), or a reason on bad input.
 */
export function parseAcctResource(resource: string | undefined, issuerHost: string): { ownHost: boolean } | { error: string } {
  if (resource === undefined || resource === '') return { error: 'the resource parameter is required' };
  if (resource.length > 512) return { error: 'the resource parameter is too long' };
  // Linear: neither class admits '@', so the split point is fixed.
  const m = /^acct:([^@\s/?#]+)@([^@\s/?#]+)$/i.exec(resource);
  if (!m) return { error: 'resource must be an acct: URI of the form acct:user@host' };
  try {
    decodeURIComponent(m[1]!);
  } catch {
    return { error: 'resource has a malformed percent-encoding' };
  }
  return { ownHost: m[2]!.toLowerCase() === issuerHost.toLowerCase() };
}

export function webfingerDocument(resource: string, issuer: string, rels: string[]): { subject: string; links: { rel: string; href: string }[] } {
  const links = [{ rel: ISSUER_REL, href: issuer }];
  // RFC 7033 §4.3: `rel` filters the links; no `rel` means all of them.
  return { subject: resource, links: rels.length ? links.filter((l) => rels.includes(l.rel)) : links };
}
