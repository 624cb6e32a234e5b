// What the tokens and UserInfo release, by granted scope: the ID token's and
// the access token's claims, where the scopes' standard claims go, the opt-in
// and team claims, and which of Keyflow's JWTs counts as an ID token. (The
// values of the standard claims themselves: standard-claims.test.ts.)
import {
  accessTokenClaims,
  idTokenClaimNames,
  idTokenClaims,
  isIdToken,
  optInClaimsNeeded,
  scopeClaimNames,
  teamClaims,
  teamClaimsCoverage,
  TOKEN_TTL_SECONDS,
  userinfoClaims,
  type AuthContext,
  type ClaimsTeam,
  type ClaimsUser,
} from '../../../lib/model/claims.js';

const ISSUER = 'https://id.example';
const user: ClaimsUser = {
  _id: 'u1',
  email: 'ada@example.com',
  emailVerified: true,
  username: 'ada',
  name: 'Ada',
  picture: null,
  role: 'admin',
  updatedAt: new Date('2024-03-01T12:00:00Z'),
};
const NOW = Date.parse('2025-01-01T00:00:10.900Z');
const auth: AuthContext = { authTime: new Date('2025-01-01T00:00:00.500Z'), amr: ['pwd', 'otp'], acr: 'mfa', sid: 'sid-1' };

describe('scopeClaimNames and idTokenClaimNames', () => {
  it('lists the standard claims each granted scope releases, none for the others', () => {
    expect(scopeClaimNames(['openid', 'email', 'offline_access'])).toEqual(['email', 'email_verified']);
    expect(scopeClaimNames(['phone', 'address'])).toEqual(['address', 'phone_number', 'phone_number_verified']);
    expect(scopeClaimNames(['profile'])).toContain('preferred_username');
    expect(scopeClaimNames(['openid', 'apps:read'])).toEqual([]);
  });

  it('puts the scope claims in the ID token only with placement `scopes`, and always those asked for there', () => {
    expect(idTokenClaimNames(['openid', 'email'], ['name', 'email'], 'scopes')).toEqual(['email', 'email_verified', 'name']);
    expect(idTokenClaimNames(['openid', 'email'], ['name'], 'requested')).toEqual(['name']);
    expect(idTokenClaimNames(['openid', 'email'], [], 'requested')).toEqual([]);
  });
});

describe('userinfoClaims', () => {
  it('answers sub, the scope claims and those asked for at UserInfo', () => {
    expect(userinfoClaims(user, ['openid'])).toEqual({ sub: 'u1' });
    expect(userinfoClaims(user, ['openid', 'email'])).toEqual({ sub: 'u1', email: 'ada@example.com', email_verified: true });
    expect(userinfoClaims(user, ['openid'], ['preferred_username', 'picture'])).toEqual({ sub: 'u1', preferred_username: 'ada' });
  });
});

describe('opt-in claims', () => {
  it('are released only when both the scope is granted and the client listed the claim', () => {
    expect(optInClaimsNeeded(['apps:read', 'domains:read', 'gpg:read', 'social:read'], ['apps', 'domains', 'gpg_keys', 'social_accounts'])).toEqual([
      'apps',
      'domains',
      'gpg_keys',
      'social_accounts',
    ]);
    expect(optInClaimsNeeded(['apps:read'], ['domains'])).toEqual([]);
    expect(optInClaimsNeeded(['domains:read'], ['apps', 'domains'])).toEqual(['domains']);
    // Write scopes do not release the read claims.
    expect(optInClaimsNeeded(['apps:write'], ['apps'])).toEqual([]);
    // `teams` is with the team claims, not here.
    expect(optInClaimsNeeded(['teams:read'], ['teams'])).toEqual([]);
  });
});

describe('team claims', () => {
  const teams: ClaimsTeam[] = [
    { id: 't1', name: 'Core', role: 'owner', groups: ['ops'] },
    { id: 't2', name: 'Docs', role: 'member', groups: [] },
  ];

  it('cover every team with teams:read, only the bound teams otherwise, none without a team scope', () => {
    expect(teamClaimsCoverage(['openid', 'teams:read', 'team:t1:read'])).toBe('all');
    expect(teamClaimsCoverage(['openid', 'team:t1:read', 'team:t1:write', 'team:t2:read'])).toEqual(['t1', 't2']);
    expect(teamClaimsCoverage(['openid', 'team:read'])).toBeNull();
    expect(teamClaimsCoverage(['openid', 'teams:write'])).toBeNull();
  });

  it('give the teams list only with teams:read and oidc_fields teams, the flat claims always, groups only when held', () => {
    const flat = { in_team_t1: true, role_in_team_t1: 'owner', groups_in_team_t1: ['ops'], in_team_t2: true, role_in_team_t2: 'member' };
    expect(teamClaims(['teams:read'], ['teams'], teams)).toEqual({
      teams: [
        { id: 't1', name: 'Core', role: 'owner', groups: ['ops'] },
        { id: 't2', name: 'Docs', role: 'member', groups: [] },
      ],
      ...flat,
    });
    expect(teamClaims(['teams:read'], [], teams)).toEqual(flat);
    expect(teamClaims(['team:t1:read'], ['teams'], teams.slice(0, 1))).toEqual({ in_team_t1: true, role_in_team_t1: 'owner', groups_in_team_t1: ['ops'] });
    expect(teamClaims(['teams:read'], ['teams'], [])).toEqual({ teams: [] });
  });
});

describe('idTokenClaims', () => {
  const args = { issuer: ISSUER, clientId: 'rp', user, scope: ['openid'], claimNames: [] as string[], nonce: null, auth, now: NOW };

  it('carries who signed in, for whom, when and how, for an hour', () => {
    expect(idTokenClaims(args)).toEqual({
      iss: ISSUER,
      sub: 'u1',
      aud: 'rp',
      iat: Math.floor(NOW / 1000),
      exp: Math.floor(NOW / 1000) + TOKEN_TTL_SECONDS,
      auth_time: Math.floor(auth.authTime.getTime() / 1000),
      amr: ['pwd', 'otp'],
      acr: 'mfa',
      sid: 'sid-1',
    });
    expect(TOKEN_TTL_SECONDS).toBe(3600);
  });

  it('adds the nonce and the session only when there are some', () => {
    expect(idTokenClaims({ ...args, nonce: 'n-1' }).nonce).toBe('n-1');
    const noSession = idTokenClaims({ ...args, auth: { ...auth, sid: null } });
    expect(noSession).not.toHaveProperty('sid');
    expect(noSession).not.toHaveProperty('nonce');
  });

  it('releases the role only with profile, the named standard claims, and the extra claims', () => {
    expect(idTokenClaims(args)).not.toHaveProperty('role');
    expect(idTokenClaims({ ...args, scope: ['openid', 'profile'] }).role).toBe('admin');
    const claims = idTokenClaims({ ...args, claimNames: ['email', 'picture'], extra: { apps: [] } });
    expect(claims).toMatchObject({ email: 'ada@example.com', apps: [] });
    expect(claims).not.toHaveProperty('picture');
  });

  it('is what isIdToken recognises', () => {
    expect(isIdToken({}, idTokenClaims(args), ISSUER)).toBe(true);
    expect(isIdToken({ typ: 'JWT' }, idTokenClaims(args), ISSUER)).toBe(true);
  });
});

describe('isIdToken', () => {
  const idToken = idTokenClaims({ issuer: ISSUER, clientId: 'rp', user, scope: ['openid'], claimNames: [], nonce: null, auth, now: NOW });
  const accessToken = accessTokenClaims({
    issuer: ISSUER,
    audience: 'rp',
    clientId: 'rp',
    userId: 'u1',
    scope: ['openid'],
    grantId: 'g1',
    jti: 'j1',
    auth,
    now: NOW,
  });

  it('refuses Keyflow’s other JWTs: access tokens and logout tokens', () => {
    expect(isIdToken({ typ: 'at+jwt' }, accessToken, ISSUER)).toBe(false);
    // Even without its typ, an access token carries client_id, scope, jti …
    expect(isIdToken({}, accessToken, ISSUER)).toBe(false);
    expect(isIdToken({ typ: 'logout+jwt' }, { iss: ISSUER, sub: 'u1', aud: 'rp', iat: 1, jti: 'x', events: {} }, ISSUER)).toBe(false);
  });

  it.each<[string, Record<string, unknown>]>([
    ['another issuer', { iss: 'https://other.example' }],
    ['no subject', { sub: undefined }],
    ['several audiences', { aud: ['rp', 'other'] }],
    ['an empty audience', { aud: '' }],
    ['no auth_time', { auth_time: undefined }],
    ['an iat that is not a number', { iat: '1' }],
    ['a cnf claim', { cnf: { jkt: 'x' } }],
    ['a grant_id claim', { grant_id: 'g1' }],
  ])('refuses a token with %s', (_name, change) => {
    expect(isIdToken({}, { ...idToken, ...change }, ISSUER)).toBe(false);
  });

  it('accepts an expired ID token (still a fine id_token_hint)', () => {
    expect(isIdToken({}, { ...idToken, exp: 1 }, ISSUER)).toBe(true);
  });
});

describe('accessTokenClaims', () => {
  it('carries the audience, client, scope, grant and authentication (RFC 9068)', () => {
    expect(
      accessTokenClaims({
        issuer: ISSUER,
        audience: [ISSUER, 'https://api.rp.example'],
        clientId: 'rp',
        userId: 'u1',
        scope: ['openid', 'email'],
        grantId: 'g1',
        jti: 'j1',
        auth,
        now: NOW,
      }),
    ).toEqual({
      iss: ISSUER,
      sub: 'u1',
      aud: [ISSUER, 'https://api.rp.example'],
      client_id: 'rp',
      scope: 'openid email',
      jti: 'j1',
      iat: Math.floor(NOW / 1000),
      exp: Math.floor(NOW / 1000) + 3600,
      auth_time: Math.floor(auth.authTime.getTime() / 1000),
      acr: 'mfa',
      amr: ['pwd', 'otp'],
      grant_id: 'g1',
      sid: 'sid-1',
    });
    expect(
      accessTokenClaims({
        issuer: ISSUER,
        audience: 'rp',
        clientId: 'rp',
        userId: 'u1',
        scope: [],
        grantId: 'g1',
        jti: 'j1',
        auth: { ...auth, sid: null },
        now: NOW,
      }),
    ).not.toHaveProperty('sid');
  });
});
