// Resource indicators (RFC 8707): which `resource` values a client may name,
// each refusal an invalid_target with its reason, how a token request narrows
// what was granted, and the access token's audience that results.
import { accessTokenAudience, MAX_RESOURCES, narrowResources, parseAllowedResources, parseResources, resourceProblem } from '../../../lib/model/resources.js';

const API = 'https://api.rp.example';
const FILES = 'https://files.rp.example/v1';
const ISSUER = 'https://id.example';

describe('resourceProblem', () => {
  it.each([API, `${FILES}?tenant=a`, 'urn:example:resource', 'https://api.rp.example:8443/', `https://r.example/${'a'.repeat(2048 - 18)}`])(
    'accepts %s',
    (value) => {
      expect(resourceProblem(value)).toBeNull();
    },
  );

  it.each([
    ['', 'must be 1 to 2048 characters'],
    [`https://r.example/${'a'.repeat(2048 - 17)}`, 'must be 1 to 2048 characters'],
    ['https://api.rp.example/a b', 'must not contain whitespace or control characters'],
    ['https://api.rp.example/\t', 'must not contain whitespace or control characters'],
    ['https://api.rp.example/\u007f', 'must not contain whitespace or control characters'],
    ['https://api.rp.example/\u0001', 'must not contain whitespace or control characters'],
    ['https://api.rp.example/#part', 'must not contain a fragment'],
    ['/api', 'must be an absolute URI'],
    ['api.rp.example', 'must be an absolute URI'],
    ['1https://api.rp.example', 'must be an absolute URI'],
    ['https://[not-an-ip]/', 'must be an absolute URI'],
  ])('refuses %j: %s', (value, problem) => {
    expect(resourceProblem(value)).toBe(problem);
  });
});

describe('parseResources', () => {
  it('reads none, one or several values, without repeats, in order', () => {
    expect(parseResources(undefined)).toEqual({ ok: true, resources: [] });
    expect(parseResources(API)).toEqual({ ok: true, resources: [API] });
    expect(parseResources([FILES, API, FILES])).toEqual({ ok: true, resources: [FILES, API] });
    expect(parseResources(Array(MAX_RESOURCES).fill(API))).toEqual({ ok: true, resources: [API] });
  });

  it.each<[string, unknown, string]>([
    ['more than ten values', Array(MAX_RESOURCES + 1).fill(API), 'at most 10 resource values are accepted'],
    ['a value that is not text', [API, { url: API }], 'resource must be a string'],
    ['a number', 42, 'resource must be a string'],
    ['an empty value', '', 'resource must be 1 to 2048 characters'],
    ['a relative value among good ones', [API, '/files'], 'resource must be an absolute URI'],
  ])('refuses %s as invalid_target', (_name, raw, description) => {
    expect(parseResources(raw)).toEqual({ ok: false, error: 'invalid_target', description });
  });
});

describe('parseAllowedResources', () => {
  it('accepts only the resources the client lists', () => {
    expect(parseAllowedResources([API], [API, FILES])).toEqual({ ok: true, resources: [API] });
    expect(parseAllowedResources(undefined, [])).toEqual({ ok: true, resources: [] });
    expect(parseAllowedResources([API, 'https://other.example'], [API])).toEqual({
      ok: false,
      error: 'invalid_target',
      description: 'this application may not ask for the resource https://other.example',
    });
    // Exact strings: a trailing slash is another resource.
    expect(parseAllowedResources(`${API}/`, [API]).ok).toBe(false);
    expect(parseAllowedResources('/api', [API])).toMatchObject({ ok: false, description: 'resource must be an absolute URI' });
  });
});

describe('narrowResources (a token request)', () => {
  it('gives every granted resource the client still lists when none is asked for', () => {
    expect(narrowResources([API, FILES], undefined, [API, FILES])).toEqual({ ok: true, resources: [API, FILES] });
    expect(narrowResources([API, FILES], undefined, [FILES])).toEqual({ ok: true, resources: [FILES] });
    expect(narrowResources([], undefined, [API])).toEqual({ ok: true, resources: [] });
  });

  it('gives the ones asked for, each granted and still listed', () => {
    expect(narrowResources([API, FILES], FILES, [API, FILES])).toEqual({ ok: true, resources: [FILES] });
    expect(narrowResources([API], FILES, [API, FILES])).toEqual({ ok: false, error: 'invalid_target', description: `the resource ${FILES} was not granted` });
    expect(narrowResources([API, FILES], [API, FILES], [API])).toEqual({
      ok: false,
      error: 'invalid_target',
      description: `the resource ${FILES} was not granted`,
    });
    expect(narrowResources([API], 'relative/path', [API])).toMatchObject({ ok: false, description: 'resource must be an absolute URI' });
  });
});

describe('accessTokenAudience', () => {
  const token = (scope: string[]) => ({ scope, clientId: 'rp' });

  it('names the issuer when a scope of Keyflow’s API was granted, then the resources; one value alone is a string', () => {
    expect(accessTokenAudience(ISSUER, [], token(['openid']))).toBe(ISSUER);
    expect(accessTokenAudience(ISSUER, [API], token(['openid']))).toEqual([ISSUER, API]);
    expect(accessTokenAudience(ISSUER, [API, FILES], token(['offline_access']))).toEqual([API, FILES]);
    expect(accessTokenAudience(ISSUER, [API], token(['offline_access']))).toBe(API);
    expect(accessTokenAudience(ISSUER, undefined, token(['apps:read']))).toBe(ISSUER);
  });

  it('names the issuer once, even when it is also asked for as a resource', () => {
    expect(accessTokenAudience(ISSUER, [ISSUER, API], token(['openid']))).toEqual([ISSUER, API]);
    expect(accessTokenAudience(ISSUER, [ISSUER], token(['offline_access']))).toBe('rp');
  });

  it('names the client itself when the token is for no resource server', () => {
    expect(accessTokenAudience(ISSUER, [], token(['app:billing:*']))).toBe('rp');
    expect(accessTokenAudience(ISSUER, undefined, token(['offline_access']))).toBe('rp');
  });
});
