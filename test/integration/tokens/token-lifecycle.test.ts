// Refresh families (rotation, reuse, narrowing, expiry), introspection and
// revocation, end to end over HTTP with the real worker running RefreshFamily.
import type { Client } from '@temporalio/client';
import { familyWorkflowId } from '../../../lib/model/refresh-family.js';
import { hashSecret } from '../../../lib/security/secrets.js';
import type { NewClientInput } from '../../../lib/model/clients.js';
import { revokeGrant } from '../../../lib/store/grants.js';
import { findRefreshToken } from '../../../lib/store/refresh-tokens.js';
import { SearchAttributes } from '../../../lib/temporal/search-attributes.js';
import { useTestApi, eventually, startTestApi, type Json } from '../../support/harness.js';
import { skipTime } from '../../support/clock.js';
import { codeFlowTokens } from '../../support/token-flow.js';
import { getUserinfo, jwtClaims, postForm } from '../../support/http.js';
import { runCli } from '../../support/cli.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { newRp, type FixtureRp } from '../../../tools/fixtures/clients.js';

const PASSWORD = 'lifecycle password 1';
const REDIRECT = 'https://lifecycle-rp.example/cb';

let temporal: Client;

const api = useTestApi();
beforeAll(async () => {
  // The api's own Temporal client (closed by api.stop()).
  temporal = api.deps.temporal.client;
});

const RP: NewClientInput = {
  name: 'Lifecycle RP',
  redirectUris: [{ type: 'equals', value: REDIRECT }],
  allowedScopes: ['openid', 'profile', 'email', 'offline_access'],
  idTokenSignedResponseAlg: 'RS256',
};

const post = (path: string, body: Record<string, string>, headers: Record<string, string> = {}) => postForm(api.issuer, path, body, headers);

/** Signs a new user in and returns the first token response (with offline_access). */
async function tokensFor(rp: FixtureRp, scope = 'openid profile offline_access', base = api.issuer) {
  const { email, user } = await newUser(api.deps, { prefix: 'life', password: PASSWORD });
  const { body } = await codeFlowTokens(base, rp, REDIRECT, scope, email, PASSWORD);
  return { tokens: body, userId: user._id };
}

const refresh = (rp: FixtureRp, token: string, extra: Record<string, string> = {}) =>
  post('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: token, ...extra }, rp.headers);
const introspect = (rp: FixtureRp, token: string, hint?: string) =>
  post('/api/oauth/introspect', { token, ...(hint ? { token_type_hint: hint } : {}) }, rp.headers);
const userinfo = (accessToken: string) => getUserinfo(api.issuer, accessToken);
const grantIdOf = (accessToken: string) => jwtClaims(accessToken).grant_id as string;

describe('refresh families', () => {
  it('issues a refresh token only with offline_access, and a RefreshFamily workflow findable by client and user', async () => {
    const rp = await newRp(api.deps, RP);
    const without = await tokensFor(rp, 'openid profile');
    expect(without.tokens.refresh_token).toBeUndefined();
    const { tokens, userId } = await tokensFor(rp);
    expect(tokens.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const handle = temporal.workflow.getHandle(familyWorkflowId(grantIdOf(tokens.access_token)));
    const description = await handle.describe();
    expect(description.type).toBe('refreshFamily');
    expect(description.typedSearchAttributes.get(SearchAttributes.clientId)).toBe(rp.id);
    expect(description.typedSearchAttributes.get(SearchAttributes.userId)).toBe(userId);
    expect(description.typedSearchAttributes.get(SearchAttributes.state)).toBe('active');
    // `keyflow flows list` finds it by client and by user.
    const workflowId = familyWorkflowId(grantIdOf(tokens.access_token));
    for (const filter of [
      ['--client', rp.id],
      ['--user', userId],
    ]) {
      await eventually(
        async () => {
          const r = await runCli(['flows', 'list', ...filter]);
          expect(r.code).toBe(0);
          expect(JSON.parse(r.stdout)).toContainEqual(
            expect.objectContaining({ workflow_id: workflowId, type: 'refreshFamily', status: 'RUNNING', state: 'active', client_id: rp.id, user_id: userId }),
          );
        },
        15_000,
        500,
      );
    }
    // No token ever enters the workflow's history: only hashes.
    const history = JSON.stringify(await handle.fetchHistory());
    expect(history).not.toContain(tokens.refresh_token);
    expect(history).not.toContain(tokens.access_token.split('.')[2]);
  });

  it('rotates: the new token works, the old one is superseded, the expiry is kept', async () => {
    const rp = await newRp(api.deps, RP);
    const { tokens } = await tokensFor(rp);
    const before = (await introspect(rp, tokens.refresh_token)).body;
    const r1 = await refresh(rp, tokens.refresh_token);
    expect(r1.res.status).toBe(200);
    expect(r1.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'openid profile offline_access', refresh_token: expect.any(String) });
    expect(r1.body).not.toHaveProperty('id_token'); // optional on refresh (OIDC Core §12.2)
    expect(r1.body.refresh_token).not.toBe(tokens.refresh_token);
    expect((await userinfo(r1.body.access_token)).status).toBe(200);
    const after = (await introspect(rp, r1.body.refresh_token)).body;
    expect(after).toMatchObject({ active: true, token_type: 'refresh_token', client_id: rp.id });
    expect(after.exp).toBe(before.exp); // rotation never extends the family
    expect((await introspect(rp, tokens.refresh_token)).body).toEqual({ active: false });
    const r2 = await refresh(rp, r1.body.refresh_token);
    expect(r2.res.status).toBe(200);
  });

  it('revokes the whole grant when a superseded token comes back', async () => {
    const rp = await newRp(api.deps, RP);
    const { tokens } = await tokensFor(rp);
    const r1 = await refresh(rp, tokens.refresh_token);
    // Rotated twice: the first token is older than the one a retry may repeat (refresh-retry-window.test.ts).
    const r2 = await refresh(rp, r1.body.refresh_token);
    const reuse = await refresh(rp, tokens.refresh_token);
    expect(reuse.res.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
    // Every token of the grant is refused now, including the newest.
    expect((await refresh(rp, r2.body.refresh_token)).body.error).toBe('invalid_grant');
    expect((await userinfo(r2.body.access_token)).status).toBe(401);
    expect((await userinfo(r1.body.access_token)).status).toBe(401);
    expect((await userinfo(tokens.access_token)).status).toBe(401);
    expect((await introspect(rp, r1.body.access_token)).body).toEqual({ active: false });
    const handle = temporal.workflow.getHandle(familyWorkflowId(grantIdOf(tokens.access_token)));
    await eventually(async () => expect((await handle.describe()).status.name).toBe('COMPLETED'));
    expect((await handle.describe()).typedSearchAttributes.get(SearchAttributes.state)).toBe('revoked');
  });

  it('refuses the refresh token of a grant revoked in MongoDB even when its family missed the revocation, and ends the family', async () => {
    const rp = await newRp(api.deps, RP);
    const { tokens } = await tokensFor(rp);
    const grantId = grantIdOf(tokens.access_token);
    // Only the grant document is revoked (as a replayed code, a deleted client or a deleted user does):
    // the RefreshFamily workflow still says active.
    await revokeGrant(api.deps.store, grantId, 'revoked behind the family');
    const handle = temporal.workflow.getHandle(familyWorkflowId(grantId));
    expect((await handle.describe()).typedSearchAttributes.get(SearchAttributes.state)).toBe('active');
    const r = await refresh(rp, tokens.refresh_token);
    expect([r.res.status, r.body.error]).toEqual([400, 'invalid_grant']);
    await eventually(async () => expect((await handle.describe()).typedSearchAttributes.get(SearchAttributes.state)).toBe('revoked'), 15_000);
  });

  it('lets the requested scope narrow the access token, never widen it', async () => {
    const rp = await newRp(api.deps, RP);
    const { tokens } = await tokensFor(rp);
    const narrow = await refresh(rp, tokens.refresh_token, { scope: 'openid' });
    expect(narrow.body.scope).toBe('openid');
    const wide = await refresh(rp, narrow.body.refresh_token, { scope: 'openid email' });
    expect(wide.res.status).toBe(400);
    expect(wide.body.error).toBe('invalid_scope');
    // The family keeps its full scope.
    expect((await refresh(rp, narrow.body.refresh_token)).body.scope).toBe('openid profile offline_access');
  });

  it("refuses another client's refresh token without revealing it", async () => {
    const rp = await newRp(api.deps, RP);
    const other = await newRp(api.deps, RP);
    const { tokens } = await tokensFor(rp);
    expect((await refresh(other, tokens.refresh_token)).body.error).toBe('invalid_grant');
    expect((await refresh(rp, tokens.refresh_token)).res.status).toBe(200);
  });

  it('ends the family at its absolute expiry', async () => {
    const shortApi = await startTestApi({ REFRESH_TOKEN_TTL_SECONDS: '2' });
    try {
      const rp = await newRp(api.deps, RP);
      const { tokens } = await tokensFor(rp, 'openid offline_access', shortApi.url);
      skipTime(2500);
      const res = await fetch(`${shortApi.url}/api/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...rp.headers },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as Json).error).toBe('invalid_grant');
      const handle = temporal.workflow.getHandle(familyWorkflowId(grantIdOf(tokens.access_token)));
      await eventually(async () => expect((await handle.describe()).typedSearchAttributes.get(SearchAttributes.state)).toBe('expired'), 15_000);
      // The family deleted its token when it ended.
      await eventually(async () => expect(await findRefreshToken(api.deps.store, hashSecret(tokens.refresh_token))).toBeNull(), 15_000);
    } finally {
      await shortApi.stop();
    }
  });
});

describe('introspection', () => {
  it('describes active access and refresh tokens with the documented fields', async () => {
    const rp = await newRp(api.deps, RP);
    const { tokens, userId } = await tokensFor(rp);
    const at = await introspect(rp, tokens.access_token);
    expect(at.res.headers.get('cache-control')).toBe('no-store');
    expect(at.body).toMatchObject({
      active: true,
      sub: userId,
      scope: 'openid profile offline_access',
      client_id: rp.id,
      token_type: 'Bearer',
      iss: api.issuer,
      aud: api.issuer,
      acr: 'pwd',
      amr: ['pwd'],
    });
    for (const k of ['exp', 'iat', 'auth_time']) expect(typeof at.body[k]).toBe('number');
    // The hint is honoured for order but not trusted.
    expect((await introspect(rp, tokens.access_token, 'refresh_token')).body.active).toBe(true);
    const rt = await introspect(rp, tokens.refresh_token, 'access_token');
    expect(rt.body).toMatchObject({ active: true, sub: userId, client_id: rp.id, token_type: 'refresh_token', iss: api.issuer, acr: 'pwd' });
  });

  it('says {active:false} for unknown tokens and tokens of another client', async () => {
    const rp = await newRp(api.deps, RP);
    const other = await newRp(api.deps, RP);
    const { tokens } = await tokensFor(rp);
    expect((await introspect(rp, 'no-such-token')).body).toEqual({ active: false });
    expect((await introspect(other, tokens.access_token)).body).toEqual({ active: false });
    expect((await introspect(other, tokens.refresh_token)).body).toEqual({ active: false });
  });

  it('requires client authentication', async () => {
    const rp = await newRp(api.deps, RP);
    const r = await post('/api/oauth/introspect', { token: 'x' }, { authorization: `Basic ${Buffer.from(`${rp.id}:wrong`).toString('base64')}` });
    expect(r.res.status).toBe(401);
    expect(r.body.error).toBe('invalid_client');
    expect((await post('/api/oauth/introspect', {}, rp.headers)).body.error).toBe('invalid_request');
  });
});

describe('revocation', () => {
  it('revokes an access token by jti, leaving the grant', async () => {
    const rp = await newRp(api.deps, RP);
    const { tokens } = await tokensFor(rp);
    const r = await post('/api/oauth/revoke', { token: tokens.access_token, token_type_hint: 'access_token' }, rp.headers);
    expect(r.res.status).toBe(200);
    expect((await userinfo(tokens.access_token)).status).toBe(401);
    expect((await introspect(rp, tokens.access_token)).body).toEqual({ active: false });
    // The refresh token still works and gives a fresh access token.
    const next = await refresh(rp, tokens.refresh_token);
    expect((await userinfo(next.body.access_token)).status).toBe(200);
  });

  it('revokes the grant with its refresh token', async () => {
    const rp = await newRp(api.deps, RP);
    const { tokens } = await tokensFor(rp);
    expect((await post('/api/oauth/revoke', { token: tokens.refresh_token }, rp.headers)).res.status).toBe(200);
    expect((await refresh(rp, tokens.refresh_token)).body.error).toBe('invalid_grant');
    expect((await userinfo(tokens.access_token)).status).toBe(401);
  });

  it('revoking a family with several rotated tokens refuses each of them, and the family deletes them as it ends', async () => {
    const rp = await newRp(api.deps, RP);
    const { tokens } = await tokensFor(rp);
    const issued = [tokens.refresh_token as string];
    for (let n = 0; n < 3; n++) {
      const r = await refresh(rp, issued.at(-1)!);
      expect(r.res.status).toBe(200);
      issued.push(r.body.refresh_token);
    }
    expect((await post('/api/oauth/revoke', { token: issued.at(-1)! }, rp.headers)).res.status).toBe(200);
    for (const token of issued) {
      expect((await refresh(rp, token)).body.error).toBe('invalid_grant');
      expect((await introspect(rp, token, 'refresh_token')).body).toEqual({ active: false });
    }
    const handle = temporal.workflow.getHandle(familyWorkflowId(grantIdOf(tokens.access_token)));
    await eventually(async () => expect((await handle.describe()).status.name).toBe('COMPLETED'));
    for (const token of issued) expect(await findRefreshToken(api.deps.store, hashSecret(token))).toBeNull();
  });

  it('revokes the grant when a superseded refresh token is presented', async () => {
    const rp = await newRp(api.deps, RP);
    const { tokens } = await tokensFor(rp);
    const r1 = await refresh(rp, tokens.refresh_token);
    await post('/api/oauth/revoke', { token: tokens.refresh_token }, rp.headers);
    expect((await refresh(rp, r1.body.refresh_token)).body.error).toBe('invalid_grant');
  });

  it("answers 200 for unknown tokens and leaves other clients' tokens alone", async () => {
    const rp = await newRp(api.deps, RP);
    const other = await newRp(api.deps, RP);
    const { tokens } = await tokensFor(rp);
    expect((await post('/api/oauth/revoke', { token: 'unknown-token' }, rp.headers)).res.status).toBe(200);
    expect((await post('/api/oauth/revoke', { token: tokens.refresh_token }, other.headers)).res.status).toBe(200);
    expect((await post('/api/oauth/revoke', { token: tokens.access_token }, other.headers)).res.status).toBe(200);
    expect((await userinfo(tokens.access_token)).status).toBe(200);
    expect((await refresh(rp, tokens.refresh_token)).res.status).toBe(200);
  });
});
