// The refresh retry window (REFRESH_RETRY_WINDOW_SECONDS): a refresh whose
// answer was lost can be retried with the same token for a short while and
// gets a fresh successor; the successor it replaces is then superseded, so
// whichever copy is used later is reuse and revokes the grant; a public
// client's token without DPoP has a window of its own
// (REFRESH_RETRY_WINDOW_PUBLIC_SECONDS), closed by default. Checked only
// by what the client sees over HTTP: the token endpoint's answers and UserInfo.
import { useTestApi, type ApiUnderTest, type Json, startTestApi } from '../../support/harness.js';
import { skipTime } from '../../support/clock.js';
import { authorizeAs, FLOW_PASSWORD, FLOW_REDIRECT, flowAuthorizeUrl, newTestRp, runCodeFlow, type TestRp } from '../../support/token-flow.js';
import { getUserinfo, postForm } from '../../support/http.js';
import { newSecret } from '../../../lib/security/secrets.js';
import { newRp } from '../../../tools/fixtures/clients.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';

/** The window of every api here but the ones a test starts with another. */
const WINDOW_SECONDS = '30';

const api = useTestApi({ REFRESH_RETRY_WINDOW_SECONDS: WINDOW_SECONDS });

const refresh = (on: ApiUnderTest, rp: TestRp, token: string) =>
  postForm(on, '/api/oauth/token', { grant_type: 'refresh_token', refresh_token: token }, rp.auth);
const introspect = async (on: ApiUnderTest, rp: TestRp, token: string) =>
  (await postForm(on, '/api/oauth/introspect', { token, token_type_hint: 'refresh_token' }, rp.auth)).body;
const userinfo = (on: ApiUnderTest, accessToken: string) => getUserinfo(on, accessToken);

/** A new grant with offline_access: its first token response. */
async function grant(on: ApiUnderTest = api) {
  const rp = await newTestRp(on);
  const { tokens } = await runCodeFlow(on, rp, 'openid offline_access');
  return { rp, tokens };
}

/** A refresh that must succeed: its token response. */
async function refreshed(on: ApiUnderTest, rp: TestRp, token: string): Promise<Json> {
  const r = await refresh(on, rp, token);
  expect([r.res.status, r.body.error]).toEqual([200, undefined]);
  return r.body;
}

/** A refresh answered as reuse: invalid_grant, saying the grant is revoked. */
async function expectReuse(on: ApiUnderTest, rp: TestRp, token: string) {
  const r = await refresh(on, rp, token);
  expect([r.res.status, r.body.error]).toEqual([400, 'invalid_grant']);
  expect(r.body.error_description).toMatch(/already used; the grant is revoked/);
}

/** The grant is gone: its refresh tokens refused, its access tokens refused at UserInfo. */
async function expectGrantRevoked(on: ApiUnderTest, rp: TestRp, refreshTokens: string[], accessTokens: string[]) {
  for (const token of refreshTokens) expect((await refresh(on, rp, token)).body.error).toBe('invalid_grant');
  for (const token of accessTokens) expect((await userinfo(on, token)).status).toBe(401);
}

describe('within the window', () => {
  it('a retry with the token just rotated gets a fresh successor; the successor it replaced, used later, is reuse', async () => {
    const { rp, tokens: t0 } = await grant();
    const t1 = await refreshed(api, rp, t0.refresh_token); // its answer "lost"
    const t2 = await refreshed(api, rp, t0.refresh_token); // the retry
    expect(t2.refresh_token).not.toBe(t1.refresh_token);
    expect((await userinfo(api, t2.access_token)).status).toBe(200);
    const t3 = await refreshed(api, rp, t2.refresh_token);
    // The lost answer turns up after all: reuse.
    await expectReuse(api, rp, t1.refresh_token);
    await expectGrantRevoked(api, rp, [t3.refresh_token, t2.refresh_token], [t3.access_token, t2.access_token, t1.access_token, t0.access_token]);
  });

  it('the other order: after the retry, the successor it replaced is reuse when used first', async () => {
    const { rp, tokens: t0 } = await grant();
    const t1 = await refreshed(api, rp, t0.refresh_token);
    const t2 = await refreshed(api, rp, t0.refresh_token);
    // Introspection already tells: the answer the retry replaced is no longer active.
    expect(await introspect(api, rp, t1.refresh_token)).toEqual({ active: false });
    expect(await introspect(api, rp, t2.refresh_token)).toMatchObject({ active: true });
    await expectReuse(api, rp, t1.refresh_token);
    await expectGrantRevoked(api, rp, [t2.refresh_token], [t2.access_token, t1.access_token]);
  });

  it('a token older than the one just rotated is reuse: T0 after T1 rotated normally to T2', async () => {
    const { rp, tokens: t0 } = await grant();
    const t1 = await refreshed(api, rp, t0.refresh_token);
    const t2 = await refreshed(api, rp, t1.refresh_token);
    await expectReuse(api, rp, t0.refresh_token);
    await expectGrantRevoked(api, rp, [t2.refresh_token, t1.refresh_token], [t2.access_token]);
  });

  it('a retried token is older once its fresh successor has rotated: reuse', async () => {
    const { rp, tokens: t0 } = await grant();
    await refreshed(api, rp, t0.refresh_token);
    const t2 = await refreshed(api, rp, t0.refresh_token);
    const t3 = await refreshed(api, rp, t2.refresh_token);
    await expectReuse(api, rp, t0.refresh_token);
    await expectGrantRevoked(api, rp, [t3.refresh_token], [t3.access_token]);
  });

  it("another client's copy of the token gets nothing and is no retry: the successor keeps working", async () => {
    const { rp, tokens: t0 } = await grant();
    const other = await newTestRp(api);
    const t1 = await refreshed(api, rp, t0.refresh_token);
    const copy = await refresh(api, other, t0.refresh_token);
    expect([copy.res.status, copy.body.error]).toEqual([400, 'invalid_grant']);
    expect(copy.body.error_description).not.toMatch(/already used/);
    expect(copy.body).not.toHaveProperty('refresh_token');
    // Nothing was superseded or revoked by the copy.
    const t2 = await refreshed(api, rp, t1.refresh_token);
    expect((await userinfo(api, t2.access_token)).status).toBe(200);
  });
});

describe('outside the window', () => {
  it('a retry after the window is reuse', async () => {
    // The window is counted on the api's clock, from the rotation's claim: moved past it, not waited out.
    const short = await startTestApi({ REFRESH_RETRY_WINDOW_SECONDS: '1' });
    try {
      const { rp, tokens: t0 } = await grant(short);
      const t1 = await refreshed(short, rp, t0.refresh_token);
      skipTime(1_500);
      await expectReuse(short, rp, t0.refresh_token);
      await expectGrantRevoked(short, rp, [t1.refresh_token], [t1.access_token]);
    } finally {
      await short.stop();
    }
  });

  it('with a window of 0 every superseded token is reuse, the one just rotated too', async () => {
    const off = await startTestApi({ REFRESH_RETRY_WINDOW_SECONDS: '0' });
    try {
      const { rp, tokens: t0 } = await grant(off);
      const t1 = await refreshed(off, rp, t0.refresh_token);
      await expectReuse(off, rp, t0.refresh_token);
      await expectGrantRevoked(off, rp, [t1.refresh_token], [t1.access_token]);
    } finally {
      await off.stop();
    }
  });
});

describe("a public client's refresh token without DPoP", () => {
  /** A grant of a new public client (no secret, no DPoP) on `on`: its first tokens, and its refresh request. */
  async function publicGrant(on: ApiUnderTest) {
    const rp = await newRp(on.deps, {
      name: 'Public RP',
      public: true,
      redirectUris: [{ type: 'equals', value: FLOW_REDIRECT }],
      allowedScopes: ['openid', 'offline_access'],
      idTokenSignedResponseAlg: 'RS256',
    });
    const { email } = await newUser(on.deps, { prefix: 'public-window', password: FLOW_PASSWORD });
    const verifier = newSecret();
    const back = await authorizeAs(new HttpUser(on.url), flowAuthorizeUrl(on, rp, 'openid offline_access', verifier), email, FLOW_PASSWORD);
    const code = back.searchParams.get('code')!;
    const first = await postForm(on, '/api/oauth/token', {
      ...rp.body,
      grant_type: 'authorization_code',
      code,
      redirect_uri: FLOW_REDIRECT,
      code_verifier: verifier,
    });
    expect([first.status, first.body.token_type]).toEqual([200, 'Bearer']);
    const refreshPublic = (token: string) => postForm(on, '/api/oauth/token', { ...rp.body, grant_type: 'refresh_token', refresh_token: token });
    return { tokens: first.body, refreshPublic };
  }

  it('has no retry window by default: nothing but its possession protects it, so presenting it again at once is reuse', async () => {
    const { tokens: t0, refreshPublic } = await publicGrant(api);
    const t1 = await refreshPublic(t0.refresh_token);
    expect(t1.status).toBe(200);
    // What a retry after a lost answer sends, and what a thief who captured the token sends alike.
    const replay = await refreshPublic(t0.refresh_token);
    expect([replay.status, replay.body.error]).toEqual([400, 'invalid_grant']);
    expect(replay.body.error_description).toMatch(/already used; the grant is revoked/);
    expect((await refreshPublic(t1.body.refresh_token)).body.error).toBe('invalid_grant');
    expect((await userinfo(api, t1.body.access_token)).status).toBe(401);
  });

  it('gets the window REFRESH_RETRY_WINDOW_PUBLIC_SECONDS opens for it', async () => {
    const open = await startTestApi({ REFRESH_RETRY_WINDOW_PUBLIC_SECONDS: WINDOW_SECONDS });
    try {
      const { tokens: t0, refreshPublic } = await publicGrant(open);
      expect((await refreshPublic(t0.refresh_token)).status).toBe(200);
      const retry = await refreshPublic(t0.refresh_token);
      expect([retry.status, retry.body.error]).toEqual([200, undefined]);
      expect((await userinfo(open, retry.body.access_token)).status).toBe(200);
    } finally {
      await open.stop();
    }
  });
});
