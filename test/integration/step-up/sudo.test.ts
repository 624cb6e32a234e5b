// Sudo windows of step-up 2FA: the SudoWindow workflow (TTL timer, revoke,
// search attributes), its MongoDB projection read by the hot path, the revoke
// endpoint, the site setting (0 disables) and sign-out.
//
// Site settings are global, so this file runs its api on a database of its own
// (another test file may change `sudo_mode_ttl_minutes` in the shared one). The
// shared test worker still writes the projection here: openSudoWindow names the
// api's database in the workflow input and the activities write there.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { AuditTrail } from '../../../lib/audit/audit-trail.js';
import { activeSudoWindow, openSudoWindow, revokeSudoWindow, type SudoDeps } from '../../../lib/step-up/sudo-windows.js';
import { sudoWindowId } from '../../../lib/model/sudo-window-id.js';
import type { SudoWindowKey } from '../../../lib/model/sudo-window.js';
import type { NewClientInput } from '../../../lib/model/clients.js';
import { SESSION_TTL_MS } from '../../../lib/model/sessions.js';
import { createPersonalAccessToken } from '../../../lib/store/personal-access-tokens.js';
import { findSessionBySid } from '../../../lib/store/sessions.js';
import { setSiteSetting } from '../../../lib/store/settings.js';
import { recordSudoWindowEnded, sudoWindows } from '../../../lib/store/sudo-windows.js';
import { SearchAttributes } from '../../../lib/temporal/search-attributes.js';
import { sudoActiveQuery } from '../../../lib/temporal/flow-messages.js';
import { commandFilters } from '../../support/command-filters.js';
import { useTestApi, eventually, type Json } from '../../support/harness.js';
import { runCli } from '../../support/cli.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { withPkce, withVerifier } from '../../../tools/fixtures/pkce.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newRp } from '../../../tools/fixtures/clients.js';
import { testDatabase } from '../../support/database.js';

const PASSWORD = 'sudo window password 1';
const REDIRECT = 'https://sudo-rp.example/cb';
/** When a session signed in now would end (its lists expire with it). */
const sessionEnd = () => new Date(Date.now() + SESSION_TTL_MS);
const database = testDatabase('sudo');

let temporal: Client;
let deps: SudoDeps & { audit: AuditTrail };

const api = useTestApi(database.env);
beforeAll(async () => {
  // The api's own Temporal client (closed by api.stop()).
  temporal = api.deps.temporal.client;
  deps = {
    store: api.deps.store,
    audit: api.deps.audit,
    flows: { client: api.deps.temporal.client, taskQueue: api.deps.config.temporal.taskQueue },
  };
  await setSiteSetting(api.deps.store, 'sudo_mode_ttl_minutes', 10);
});

const RP: NewClientInput = {
  name: 'Sudo RP',
  redirectUris: [{ type: 'equals', value: REDIRECT }],
  allowedScopes: ['openid', 'profile'],
  idTokenSignedResponseAlg: 'RS256',
};

/** A user signed in over HTTP (code flow) with an access token of that session: its `sid` claim names the session. */
async function signedIn() {
  const rp = await newRp(api.deps, RP);
  const { email, user } = await newUser(api.deps, { prefix: 'sudo', password: PASSWORD });
  const agent = new HttpUser(api.issuer);
  let step = await agent.get(
    `/api/oauth/authorize?${new URLSearchParams(withPkce({ response_type: 'code', client_id: rp.id, redirect_uri: REDIRECT, scope: 'openid' }))}`,
  );
  step = await agent.signIn(step, email, PASSWORD);
  step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
  const code = step.external!.searchParams.get('code')!;
  const tokenRes = await fetch(`${api.issuer}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: rp.basic },
    body: new URLSearchParams(withVerifier({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT })),
  });
  const tokens = (await tokenRes.json()) as Json;
  const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1], 'base64url').toString());
  expect(typeof claims.sid).toBe('string');
  return { rp, user, agent, accessToken: tokens.access_token as string, sid: claims.sid as string };
}

const revokeRequest = (body: unknown, accessToken?: string) =>
  fetch(`${api.issuer}/api/oauth/2fa/sudo/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}) },
    body: JSON.stringify(body),
  });

async function finalState(windowId: string): Promise<string | undefined> {
  const handle = temporal.workflow.getHandle(windowId);
  await eventually(async () => expect((await handle.describe()).status.name).toBe('COMPLETED'), 15_000);
  return (await handle.describe()).typedSearchAttributes.get(SearchAttributes.state);
}

describe('sudo windows', () => {
  it('opens a window bound to (user, session, client): a SudoWindow workflow findable by client and user', async () => {
    const key: SudoWindowKey = { userId: `user-${Date.now()}`, sid: `sid-${Math.random()}`, clientId: `client-${Date.now()}` };
    const before = Date.now();
    const opened = await openSudoWindow(deps, key, sessionEnd());
    expect(opened).not.toBeNull();
    expect(opened!.windowId).toBe(sudoWindowId(key));
    expect(opened!.windowId).toMatch(new RegExp(`^sudo:${key.userId}:[A-Za-z0-9_-]{16}:${key.clientId}$`));
    expect(opened!.windowId).not.toContain(key.sid);
    // Minutes from the site setting at the time of opening.
    expect(opened!.expiresAt.getTime()).toBeGreaterThanOrEqual(before + 10 * 60_000);
    expect(opened!.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 10 * 60_000);

    expect(await activeSudoWindow(api.deps.store, key)).toBe(true);
    expect(await activeSudoWindow(api.deps.store, { ...key, clientId: `${key.clientId}-other` })).toBe(false);
    expect(await activeSudoWindow(api.deps.store, { ...key, sid: `${key.sid}-other` })).toBe(false);
    expect(await activeSudoWindow(api.deps.store, { ...key, userId: `${key.userId}-other` })).toBe(false);

    const handle = temporal.workflow.getHandle(opened!.windowId);
    const description = await handle.describe();
    expect(description.type).toBe('sudoWindow');
    expect(description.status.name).toBe('RUNNING');
    expect(description.typedSearchAttributes.get(SearchAttributes.clientId)).toBe(key.clientId);
    expect(description.typedSearchAttributes.get(SearchAttributes.userId)).toBe(key.userId);
    expect(description.typedSearchAttributes.get(SearchAttributes.state)).toBe('active');
    expect(await handle.query(sudoActiveQuery)).toBe(true);
    await eventually(
      async () => {
        const r = await runCli(['flows', 'list', '--user', key.userId]);
        expect(JSON.parse(r.stdout)).toContainEqual(
          expect.objectContaining({ workflow_id: opened!.windowId, type: 'sudoWindow', state: 'active', client_id: key.clientId, user_id: key.userId }),
        );
      },
      15_000,
      500,
    );

    expect(await revokeSudoWindow(deps, key)).toBe(true);
    expect(await finalState(opened!.windowId)).toBe('revoked');
  });

  it('ends at its TTL: the projection says so (written by the activity in this database) and the workflow is `ended`', async () => {
    const key: SudoWindowKey = { userId: `user-${Date.now()}`, sid: `sid-${Math.random()}`, clientId: `client-ttl-${Date.now()}` };
    const opened = await openSudoWindow(deps, key, sessionEnd(), { ttlMs: 2_000 });
    expect(await activeSudoWindow(api.deps.store, key)).toBe(true);
    await eventually(async () => expect(await activeSudoWindow(api.deps.store, key)).toBe(false), 10_000);
    expect(await finalState(opened!.windowId)).toBe('ended');
    await eventually(async () => expect((await sudoWindows(api.deps.store).findOne({ _id: opened!.windowId }))?.status).toBe('ended'));
    // The window can be opened again for the same (user, session, client).
    const again = await openSudoWindow(deps, key, sessionEnd());
    expect(again!.windowId).toBe(opened!.windowId);
    expect(await activeSudoWindow(api.deps.store, key)).toBe(true);
    await revokeSudoWindow(deps, key);
  });

  it('reopening an open window replaces it: one running workflow per (user, session, client), the timer from now', async () => {
    const key: SudoWindowKey = { userId: `user-${Date.now()}`, sid: `sid-${Math.random()}`, clientId: `client-re-${Date.now()}` };
    const first = await openSudoWindow(deps, key, sessionEnd(), { ttlMs: 60_000 });
    const firstRun = (await temporal.workflow.getHandle(first!.windowId).describe()).runId;
    const second = await openSudoWindow(deps, key, sessionEnd());
    expect(second!.windowId).toBe(first!.windowId);
    expect(second!.expiresAt.getTime()).toBeGreaterThan(first!.expiresAt.getTime());
    expect((await temporal.workflow.getHandle(first!.windowId, firstRun).describe()).status.name).toBe('TERMINATED');
    expect((await temporal.workflow.getHandle(first!.windowId).describe()).status.name).toBe('RUNNING');
    expect((await sudoWindows(api.deps.store).findOne({ _id: first!.windowId }))?.expiresAt).toEqual(second!.expiresAt);
    expect(await activeSudoWindow(api.deps.store, key)).toBe(true);
    expect(await revokeSudoWindow(deps, key)).toBe(true);
    expect(await activeSudoWindow(api.deps.store, key)).toBe(false);
  });

  it("an earlier opening's end leaves the later opening active, and is written by `_id` alone", async () => {
    const key: SudoWindowKey = { userId: `user-${Date.now()}`, sid: `sid-${Math.random()}`, clientId: `client-end-${Date.now()}` };
    const first = await openSudoWindow(deps, key, sessionEnd(), { ttlMs: 60_000 });
    const firstOpening = (await sudoWindows(api.deps.store).findOne({ _id: first!.windowId }))!.openingId;
    await openSudoWindow(deps, key, sessionEnd());
    const filters = await commandFilters(api.deps.store, ['sudo_windows'], () =>
      recordSudoWindowEnded(api.deps.store, { windowId: first!.windowId, openingId: firstOpening, status: 'ended' }),
    );
    expect(filters.length).toBeGreaterThan(0);
    for (const f of filters) expect(Object.keys(f as object)).toEqual(['_id']);
    expect(await activeSudoWindow(api.deps.store, key)).toBe(true);
    expect(await revokeSudoWindow(deps, key)).toBe(true);
    expect((await sudoWindows(api.deps.store).findOne({ _id: first!.windowId }))?.status).toBe('revoked');
  });

  it('is revoked by POST /api/oauth/2fa/sudo/revoke with an access token of the session', async () => {
    const { rp, user, accessToken, sid } = await signedIn();
    const key = { userId: user._id, sid, clientId: rp.id };
    const other = { ...key, clientId: `${rp.id}-other` };
    const opened = await openSudoWindow(deps, key, sessionEnd());
    await openSudoWindow(deps, other, sessionEnd());

    expect((await revokeRequest({ client_id: rp.id })).status).toBe(401);
    const bad = await revokeRequest({ client: rp.id }, accessToken);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'invalid_request', error_description: expect.any(String) });
    const badJson = await fetch(`${api.issuer}/api/oauth/2fa/sudo/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
      body: '{',
    });
    expect(badJson.status).toBe(400);
    expect(((await badJson.json()) as Json).error).toBe('invalid_request');
    expect((await revokeRequest({ client_id: rp.id }, 'not-a-token')).status).toBe(401);
    // A personal access token names no browser session: refused.
    const { token: pat } = await createPersonalAccessToken(api.deps.store, user._id, { name: 'sudo test', scope: ['openid'], expiresInDays: 1 });
    const patRes = await revokeRequest({ client_id: rp.id }, pat);
    expect(patRes.status).toBe(401);
    expect(((await patRes.json()) as Json).error).toBe('invalid_token');
    expect(await activeSudoWindow(api.deps.store, key)).toBe(true);

    const res = await revokeRequest({ client_id: rp.id }, accessToken);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ revoked: true });
    // The projection is updated when the endpoint answers.
    expect(await activeSudoWindow(api.deps.store, key)).toBe(false);
    expect((await sudoWindows(api.deps.store).findOne({ _id: opened!.windowId }))?.status).toBe('revoked');
    expect(await finalState(opened!.windowId)).toBe('revoked');
    // Only that client's window ended; a second revoke finds nothing.
    expect(await activeSudoWindow(api.deps.store, other)).toBe(true);
    expect(await (await revokeRequest({ client_id: rp.id }, accessToken)).json()).toEqual({ revoked: false });
    expect(await (await revokeRequest({ client_id: other.clientId }, accessToken)).json()).toEqual({ revoked: true });
  });

  it('is disabled by sudo_mode_ttl_minutes = 0: nothing is opened or started', async () => {
    const key: SudoWindowKey = { userId: `user-${Date.now()}`, sid: `sid-${Math.random()}`, clientId: `client-off-${Date.now()}` };
    await setSiteSetting(api.deps.store, 'sudo_mode_ttl_minutes', 0);
    try {
      expect(await openSudoWindow(deps, key, sessionEnd())).toBeNull();
      expect(await openSudoWindow(deps, key, sessionEnd(), { ttlMs: 60_000 })).toBeNull();
      expect(await activeSudoWindow(api.deps.store, key)).toBe(false);
      await expect(temporal.workflow.getHandle(sudoWindowId(key)).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
      expect(await sudoWindows(api.deps.store).findOne({ _id: sudoWindowId(key) })).toBeNull();
    } finally {
      await setSiteSetting(api.deps.store, 'sudo_mode_ttl_minutes', 10);
    }
  });

  it('ends every window of the session when the user signs out; the next session never finds them', async () => {
    const { rp, user, agent, sid } = await signedIn();
    const key = { userId: user._id, sid, clientId: rp.id };
    const opened = await openSudoWindow(deps, key, sessionEnd());
    expect(await activeSudoWindow(api.deps.store, key)).toBe(true);

    const account = await agent.get('/account');
    const out = await agent.submit(await account.res.text(), '/logout', {});
    expect(await out.res.text()).toContain('You are signed out');
    await eventually(async () => expect(await activeSudoWindow(api.deps.store, key)).toBe(false));
    expect(await finalState(opened!.windowId)).toBe('revoked');
    expect((await sudoWindows(api.deps.store).findOne({ _id: opened!.windowId }))?.status).toBe('revoked');

    // The session (and its sid) is gone: a later sign-in starts a session with a new sid, a new window key.
    expect(await findSessionBySid(api.deps.store, sid)).toBeNull();
  });
});
