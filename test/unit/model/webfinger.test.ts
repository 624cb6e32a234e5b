// WebFinger issuer discovery (RFC 7033, OIDC Discovery section 2): which
// resources are read, and an answer that never depends on whether the account
// exists.
import { ISSUER_REL, parseAcctResource, webfingerDocument } from '../../../lib/model/webfinger.js';

describe('parseAcctResource', () => {
  it.each<[string, boolean]>([
    ['acct:ada@id.example', true],
    ['acct:ada@ID.Example', true],
    ['ACCT:ada@id.example', true],
    ['acct:ada%40work@id.example', true],
    ['acct:ada@other.example', false],
    ['acct:ada@id.example:8443', false],
  ])('reads %j (own host: %s)', (resource, ownHost) => {
    expect(parseAcctResource(resource, 'id.example')).toEqual({ ownHost });
  });

  it.each<[string, string | undefined, string]>([
    ['no resource', undefined, 'the resource parameter is required'],
    ['an empty resource', '', 'the resource parameter is required'],
    ['a resource over 512 characters', `acct:${'a'.repeat(500)}@id.example`, 'the resource parameter is too long'],
    ['another scheme', 'mailto:ada@id.example', 'resource must be an acct: URI of the form acct:user@host'],
    ['an https URL', 'https://id.example/ada', 'resource must be an acct: URI of the form acct:user@host'],
    ['two @', 'acct:ada@x@id.example', 'resource must be an acct: URI of the form acct:user@host'],
    ['a path after the host', 'acct:ada@id.example/x', 'resource must be an acct: URI of the form acct:user@host'],
    ['a space', 'acct:a da@id.example', 'resource must be an acct: URI of the form acct:user@host'],
    ['no user', 'acct:@id.example', 'resource must be an acct: URI of the form acct:user@host'],
    ['a malformed escape', 'acct:a%ZZ@id.example', 'resource has a malformed percent-encoding'],
  ])('refuses %s', (_name, resource, error) => {
    expect(parseAcctResource(resource, 'id.example')).toEqual({ error });
  });
});

describe('webfingerDocument', () => {
  const resource = 'acct:ada@id.example';

  it('names the issuer, for every rel or the issuer rel asked for', () => {
    const issuerLink = { rel: ISSUER_REL, href: 'https://id.example' };
    expect(ISSUER_REL).toBe('http://openid.net/specs/connect/1.0/issuer');
    expect(webfingerDocument(resource, 'https://id.example', [])).toEqual({ subject: resource, links: [issuerLink] });
    expect(webfingerDocument(resource, 'https://id.example', [ISSUER_REL, 'other'])).toEqual({ subject: resource, links: [issuerLink] });
  });

  it('has no link for a rel it does not serve', () => {
    expect(webfingerDocument(resource, 'https://id.example', ['http://webfinger.net/rel/avatar'])).toEqual({ subject: resource, links: [] });
  });
});
