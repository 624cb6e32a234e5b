// response_type and response_mode: the response types Keyflow supports in
// their canonical spelling, which clients may use the implicit ones, and how
// each response travels back (query, fragment, form_post, and their JWT forms)
// with the refusals.
import {
  defaultJwtResponseMode,
  defaultResponseMode,
  isJwtResponseMode,
  parseResponseMode,
  refusalResponseMode,
  RESPONSE_MODES,
} from '../../../lib/model/response-mode.js';
import { clientMayUse, isImplicit, issuesAccessToken, parseResponseType, RESPONSE_TYPES } from '../../../lib/model/response-type.js';

describe('parseResponseType', () => {
  it.each([
    ['code', 'code'],
    ['id_token', 'id_token'],
    ['id_token token', 'id_token token'],
    ['token id_token', 'id_token token'],
  ])('reads %j as %j', (value, type) => {
    expect(parseResponseType(value)).toBe(type);
  });

  it.each(['', 'token', 'code id_token', 'code token', 'code id_token token', 'none', 'CODE', ' code', 'id_token  token', 'code code'])(
    'supports no %j',
    (value) => {
      expect(parseResponseType(value)).toBeNull();
    },
  );
});

describe('the implicit response types', () => {
  it('are every type but code; only id_token token carries an access token', () => {
    expect(RESPONSE_TYPES.filter(isImplicit)).toEqual(['id_token', 'id_token token']);
    expect(RESPONSE_TYPES.filter(issuesAccessToken)).toEqual(['id_token token']);
  });

  it('may be used only by a client that registered them (in either spelling); code by every client', () => {
    expect(clientMayUse(undefined, 'code')).toBe(true);
    expect(clientMayUse([], 'code')).toBe(true);
    expect(clientMayUse(undefined, 'id_token')).toBe(false);
    expect(clientMayUse(['code'], 'id_token token')).toBe(false);
    expect(clientMayUse(['code', 'id_token'], 'id_token')).toBe(true);
    expect(clientMayUse(['id_token'], 'id_token token')).toBe(false);
    expect(clientMayUse(['token id_token'], 'id_token token')).toBe(true);
  });
});

describe('parseResponseMode', () => {
  it('defaults to query for a code and fragment for the implicit types', () => {
    expect(defaultResponseMode('code')).toBe('query');
    expect(defaultResponseMode('id_token')).toBe('fragment');
    expect(parseResponseMode(undefined, 'code')).toEqual({ ok: true, mode: 'query' });
    expect(parseResponseMode(undefined, 'id_token token')).toEqual({ ok: true, mode: 'fragment' });
    expect(RESPONSE_MODES).toEqual(['query', 'fragment', 'form_post', 'jwt', 'query.jwt', 'fragment.jwt', 'form_post.jwt']);
  });

  it('takes form_post for every type, query only for a code, fragment only for the implicit types', () => {
    for (const type of RESPONSE_TYPES) expect(parseResponseMode('form_post', type)).toEqual({ ok: true, mode: 'form_post' });
    expect(parseResponseMode('query', 'code')).toEqual({ ok: true, mode: 'query' });
    expect(parseResponseMode('fragment', 'id_token')).toEqual({ ok: true, mode: 'fragment' });
  });

  it.each([
    ['fragment', 'code', 'response_mode=fragment is not supported: Keyflow answers with a code by query or form_post, or their .jwt forms'],
    ['web_message', 'code', 'response_mode must be query, form_post, jwt, query.jwt or form_post.jwt'],
    ['', 'code', 'response_mode must be query, form_post, jwt, query.jwt or form_post.jwt'],
    ['jwt.query', 'code', 'response_mode must be query, form_post, jwt, query.jwt or form_post.jwt'],
    ['query', 'id_token', 'response_mode=query is not allowed for response_type id_token: its tokens must not be in a query string'],
    ['query', 'id_token token', 'response_mode=query is not allowed for response_type id_token token: its tokens must not be in a query string'],
    ['FORM_POST', 'id_token', 'response_mode must be fragment, form_post, jwt, fragment.jwt or form_post.jwt for response_type id_token'],
  ] as const)('refuses %j for %s', (mode, type, description) => {
    expect(parseResponseMode(mode, type)).toEqual({ ok: false, description });
  });
});

describe('parseResponseMode: the JWT modes (JARM)', () => {
  it('reads jwt as query.jwt for a code and fragment.jwt for the implicit types, stored resolved', () => {
    expect(parseResponseMode('jwt', 'code')).toEqual({ ok: true, mode: 'query.jwt' });
    expect(parseResponseMode('jwt', 'id_token')).toEqual({ ok: true, mode: 'fragment.jwt' });
    expect(parseResponseMode('jwt', 'id_token token')).toEqual({ ok: true, mode: 'fragment.jwt' });
    expect(defaultJwtResponseMode('code')).toBe('query.jwt');
    expect(defaultJwtResponseMode('id_token')).toBe('fragment.jwt');
  });

  it('takes form_post.jwt for every type, query.jwt only for a code, fragment.jwt only for the implicit types', () => {
    for (const type of RESPONSE_TYPES) expect(parseResponseMode('form_post.jwt', type)).toEqual({ ok: true, mode: 'form_post.jwt' });
    expect(parseResponseMode('query.jwt', 'code')).toEqual({ ok: true, mode: 'query.jwt' });
    expect(parseResponseMode('fragment.jwt', 'id_token')).toEqual({ ok: true, mode: 'fragment.jwt' });
    expect(parseResponseMode('fragment.jwt', 'id_token token')).toEqual({ ok: true, mode: 'fragment.jwt' });
  });

  it.each([
    // A signed code is as readable as a plain one: never in a fragment that later redirects carry on.
    ['fragment.jwt', 'code', 'response_mode=fragment.jwt is not supported: Keyflow answers with a code by query or form_post, or their .jwt forms'],
    // JARM §2.3.1: not with token or id_token unless encrypted; Keyflow signs only.
    ['query.jwt', 'id_token', 'response_mode=query.jwt is not allowed for response_type id_token: its tokens must not be in a query string'],
    ['query.jwt', 'id_token token', 'response_mode=query.jwt is not allowed for response_type id_token token: its tokens must not be in a query string'],
    ['JWT', 'code', 'response_mode must be query, form_post, jwt, query.jwt or form_post.jwt'],
    ['form_post.JWT', 'id_token', 'response_mode must be fragment, form_post, jwt, fragment.jwt or form_post.jwt for response_type id_token'],
  ] as const)('refuses %j for %s', (mode, type, description) => {
    expect(parseResponseMode(mode, type)).toEqual({ ok: false, description });
  });

  it('answers a refused JWT mode in the JWT form of the default, any other refusal in the default', () => {
    expect(refusalResponseMode('fragment.jwt', 'code')).toBe('query.jwt');
    expect(refusalResponseMode('query.jwt', 'id_token')).toBe('fragment.jwt');
    expect(refusalResponseMode('fragment', 'code')).toBe('query');
    expect(refusalResponseMode('query', 'id_token token')).toBe('fragment');
    expect(refusalResponseMode('JWT', 'code')).toBe('query');
    expect(refusalResponseMode(null, 'code')).toBe('query');
    expect(refusalResponseMode(undefined, 'id_token')).toBe('fragment');
  });

  it('marks the JWT modes', () => {
    expect(['query', 'fragment', 'form_post', 'query.jwt', 'fragment.jwt', 'form_post.jwt', undefined].map((m) => isJwtResponseMode(m as never))).toEqual([
      false,
      false,
      false,
      true,
      true,
      true,
      false,
    ]);
  });
});
