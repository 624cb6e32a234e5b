// Request objects (OIDC Core section 6, RFC 9101), what can be decided without
// fetching or verifying one: the algorithms a client may register, the
// request_uris it may register and which of them match, and what a verified
// object's claims become as authorization parameters (the object's alone,
// with the query's client_id).
import {
  authorizationParamsOf,
  isRegisteredRequestUri,
  MAX_REQUEST_URI_LENGTH,
  REQUEST_OBJECT_SIGNING_ALG_VALUES,
  requestObjectAlgOf,
  requestUriProblem,
} from '../../../lib/model/request-object.js';

describe('requestObjectAlgOf', () => {
  it('lets a client register a client-key algorithm or none, and any when it names none', () => {
    expect(REQUEST_OBJECT_SIGNING_ALG_VALUES).toEqual(['RS256', 'PS256', 'ES256', 'EdDSA', 'none']);
    expect(requestObjectAlgOf(undefined)).toEqual({ ok: true, alg: null });
    expect(requestObjectAlgOf(null)).toEqual({ ok: true, alg: null });
    expect(requestObjectAlgOf('none')).toEqual({ ok: true, alg: 'none' });
    expect(requestObjectAlgOf('EdDSA')).toEqual({ ok: true, alg: 'EdDSA' });
  });

  it.each(['HS256', 'ML-DSA-65', 'es256', ''])('refuses %j', (alg) => {
    expect(requestObjectAlgOf(alg)).toEqual({ ok: false, description: 'request_object_signing_alg must be one of RS256, PS256, ES256, EdDSA, none' });
  });
});

describe('requestUriProblem', () => {
  it.each([
    'https://rp.example/r.jwt',
    'https://rp.example/r.jwt#sha256-of-content',
    'http://localhost:3000/r.jwt',
    'http://127.0.0.1/r.jwt',
    'http://[::1]/r.jwt',
  ])('accepts %s', (uri) => {
    expect(requestUriProblem(uri)).toBeNull();
  });

  it.each([
    ['http://rp.example/r.jwt', 'must be an absolute https URL (http only for loopback hosts)'],
    ['urn:ietf:params:oauth:request_uri:abc', 'must be an absolute https URL (http only for loopback hosts)'],
    ['https://user:pw@rp.example/r.jwt', 'must not carry credentials'],
    ['https://user@rp.example/r.jwt', 'must not carry credentials'],
    ['/r.jwt', 'must be an absolute https URL'],
    [`https://rp.example/${'a'.repeat(MAX_REQUEST_URI_LENGTH)}`, 'must be at most 512 characters'],
  ])('refuses %j: %s', (uri, problem) => {
    expect(requestUriProblem(uri)).toBe(problem);
  });
});

describe('isRegisteredRequestUri', () => {
  const registered = ['https://rp.example/r.jwt#v1', 'https://rp.example/other.jwt'];

  it('matches a registered URI whatever its fragment (it changes with the content)', () => {
    expect(isRegisteredRequestUri(registered, 'https://rp.example/r.jwt')).toBe(true);
    expect(isRegisteredRequestUri(registered, 'https://rp.example/r.jwt#v2')).toBe(true);
    expect(isRegisteredRequestUri(registered, 'https://rp.example/other.jwt#x')).toBe(true);
  });

  it('matches nothing else: another path, query, case or host', () => {
    for (const uri of ['https://rp.example/r.jwt?x=1', 'https://rp.example/R.jwt', 'https://rp.example/r.jwt/', 'https://evil.example/r.jwt']) {
      expect([uri, isRegisteredRequestUri(registered, uri)]).toEqual([uri, false]);
    }
    expect(isRegisteredRequestUri([], 'https://rp.example/r.jwt')).toBe(false);
  });
});

describe('authorizationParamsOf', () => {
  const query = { client_id: 'rp', response_type: 'code' };

  it('uses the object’s parameters alone, with the query’s client_id', () => {
    const claims = {
      iss: 'rp',
      aud: 'https://id.example',
      exp: 1,
      jti: 'j',
      client_id: 'rp',
      redirect_uri: 'https://rp.example/cb',
      scope: 'openid email',
      state: 's',
      nonce: 'n',
      code_challenge: 'c',
      code_challenge_method: 'S256',
      prompt: 'login',
      acr_values: 'mfa',
      response_mode: 'form_post',
      resource: ['https://api.rp.example'],
      dpop_jkt: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
      unknown_parameter: 'dropped',
    };
    expect(authorizationParamsOf(claims, query)).toEqual({
      ok: true,
      params: {
        client_id: 'rp',
        response_type: 'code',
        redirect_uri: 'https://rp.example/cb',
        scope: 'openid email',
        state: 's',
        nonce: 'n',
        code_challenge: 'c',
        code_challenge_method: 'S256',
        prompt: 'login',
        acr_values: 'mfa',
        response_mode: 'form_post',
        resource: ['https://api.rp.example'],
        dpop_jkt: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
      },
    });
  });

  it('turns max_age and claims into the text forms of query parameters', () => {
    const r = authorizationParamsOf({ max_age: 300, claims: { id_token: { email: null } } }, query);
    expect(r).toEqual({ ok: true, params: { client_id: 'rp', response_type: 'code', max_age: '300', claims: '{"id_token":{"email":null}}' } });
    expect(authorizationParamsOf({ max_age: '60', claims: '{}' }, query)).toMatchObject({ params: { max_age: '60', claims: '{}' } });
  });

  it('takes the response_type from either side, and none when neither has one', () => {
    expect(authorizationParamsOf({ response_type: 'id_token' }, { client_id: 'rp' })).toMatchObject({ params: { response_type: 'id_token' } });
    expect(authorizationParamsOf({ response_type: 'code' }, query)).toMatchObject({ ok: true });
    expect(authorizationParamsOf({}, { client_id: 'rp' })).toEqual({ ok: true, params: { client_id: 'rp' } });
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>, string]>([
    ['no client_id outside', {}, { response_type: 'code' }, 'client_id must be sent outside the request object too, once'],
    ['a repeated client_id outside', {}, { client_id: ['rp', 'rp'] }, 'client_id must be sent outside the request object too, once'],
    ['another client_id inside', { client_id: 'other' }, query, 'the client_id inside the request object differs from the client_id parameter'],
    ['a repeated response_type outside', {}, { client_id: 'rp', response_type: ['code', 'code'] }, 'response_type must appear at most once'],
    [
      'another response_type inside',
      { response_type: 'id_token' },
      query,
      'the response_type inside the request object differs from the response_type parameter',
    ],
    ['a request inside', { request: 'eyJ...' }, query, 'request object: request: must not be inside a request object (RFC 9101 section 4)'],
    [
      'a request_uri inside',
      { request_uri: 'https://rp.example/r.jwt' },
      query,
      'request object: request_uri: must not be inside a request object (RFC 9101 section 4)',
    ],
    ['a negative max_age', { max_age: -1 }, query, 'request object: max_age: Too small: expected number to be >=0'],
    ['a scope that is not text', { scope: ['openid'] }, query, 'request object: scope: Invalid input: expected string, received array'],
    ['a parameter over 8192 characters', { state: 's'.repeat(8193) }, query, 'request object: state: Too big: expected string to have <=8192 characters'],
    ['more than 20 resources', { resource: Array(21).fill('https://api.rp.example') }, query, 'request object: resource: Invalid input'],
  ])('refuses %s', (_name, claims, q, description) => {
    const r = authorizationParamsOf(claims, q);
    expect(r).toEqual({ ok: false, description: expect.stringContaining(description) });
  });
});
