// `keyflow backup` and `keyflow restore`: a Keyflow with users, a client and
// its grant, a refresh family that has rotated, a team and a webhook is backed
// up while it runs, and restored into an empty database under a Temporal of its
// own (nothing of the old flows): the same JWKS, users sign in, the client
// authenticates, the refresh token current at the backup keeps rotating and the
// one it superseded is still reuse, the team and the webhook are there, and the
// audit chain verifies with the restore recorded. A restore into a database
// with documents, under another KEK, or from a damaged or unfinished backup
// writes nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { createWebhook } from '../../../lib/store/webhooks.js';
import { collectionsWithDocuments } from '../../../lib/store/backup.js';
import { freePort } from '../../../tools/embedded/ports.js';
import { startTemporalDevServer } from '../../../tools/embedded/servers.js';
import { runCli } from '../../support/cli.js';
import { openTestStore, testDatabase } from '../../support/database.js';
import { startTestApi, useTestApi } from '../../support/harness.js';
import { postForm } from '../../support/http.js';
import { FLOW_PASSWORD, newTestRp, runCodeFlow } from '../../support/token-flow.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';

const source = testDatabase('backup_source');
const api = useTestApi(source.env);
const dirs: string[] = [];
const newDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyflow-backup-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

const jwksOf = async (base: string) => (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
const refresh = (base: string, rp: { auth: Record<string, string> }, refreshToken: string) =>
  postForm(base, '/api/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken }, rp.auth);

/** Backs up the source database into a new folder; the folder. */
async function backup(): Promise<string> {
  const dir = newDir();
  const r = await runCli(['backup', '--out', dir], source.env);
  expect([r.code, r.stderr]).toEqual([0, '']);
  expect(JSON.parse(r.stdout)).toMatchObject({ backup: dir, database: source.name, documents: expect.any(Number) });
  return dir;
}

it('restores into an empty database under a fresh Temporal: same keys, users sign in, clients authenticate, refresh tokens rotate, teams and webhooks kept', async () => {
  const rp = await newTestRp(api);
  const { tokens, email } = await runCodeFlow(api, rp, 'openid offline_access');
  // The family rotates once before the backup: the first token is superseded, the second current.
  const rotated = await refresh(api.url, rp, tokens.refresh_token);
  expect(rotated.status).toBe(200);
  const slug = `backup-team-${Date.now().toString(36)}`;
  expect((await runCli(['teams', 'create', '--name', 'Backup team', '--slug', slug, '--owner', email], source.env)).code).toBe(0);
  const owner = (await api.deps.store.users.findOne({ email }))!;
  const { webhook } = await createWebhook(api.deps.store, api.deps.kek, {
    scope: 'user',
    ownerUserId: owner._id,
    name: 'kept',
    url: 'https://hooks.example/keyflow',
    events: ['app.updated'],
  });
  const jwks = await jwksOf(api.url);

  const dir = await backup();
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  expect(manifest.collections.users.documents).toBeGreaterThan(0);
  expect(manifest.collections.signing_keys.documents).toBe(jwks.keys.length);
  // The KEK is not in the backup (its fingerprint is).
  const kek = api.deps.kek.key;
  for (const file of fs.readdirSync(dir)) {
    const raw = fs.readFileSync(path.join(dir, file));
    const text = file.endsWith('.gz') ? gunzipSync(raw).toString() : raw.toString();
    for (const spelling of ['base64', 'base64url', 'hex'] as const) expect(text).not.toContain(kek.toString(spelling));
  }

  const temporalPort = await freePort();
  const temporal = await startTemporalDevServer({ port: temporalPort, namespace: 'default', output: () => undefined });
  const target = testDatabase('backup_target');
  const env = { ...target.env, TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}` };
  try {
    const restore = await runCli(['restore', '--from', dir], env);
    expect([restore.code, restore.stderr]).toEqual([0, '']);
    expect(JSON.parse(restore.stdout)).toMatchObject({ database: target.name, documents: expect.any(Number) });
    const restored = await startTestApi(env);
    try {
      expect(await jwksOf(restored.url)).toEqual(jwks);
      // The user signs in with the password they had.
      const agent = new HttpUser(restored.url);
      const step = await agent.signIn(await agent.get('/login'), email, FLOW_PASSWORD);
      expect(new URL(step.url).pathname).toBe('/account');
      // The client authenticates with its secret; the current refresh token rotates, twice.
      const first = await refresh(restored.url, rp, rotated.body.refresh_token);
      expect(first.status).toBe(200);
      const { payload } = await jwtVerify(first.body.access_token, createLocalJWKSet(jwks));
      expect(payload.sub).toBe(owner._id);
      const second = await refresh(restored.url, rp, first.body.refresh_token);
      expect(second.status).toBe(200);
      // A revocation holds without the family's workflow (it lived in the old Temporal): MongoDB alone.
      expect((await postForm(restored.url, '/api/oauth/revoke', { token: second.body.refresh_token }, rp.auth)).status).toBe(200);
      expect((await refresh(restored.url, rp, second.body.refresh_token)).body.error).toBe('invalid_grant');
      // The token superseded before the backup is still reuse.
      const reuse = await refresh(restored.url, rp, tokens.refresh_token);
      expect([reuse.status, reuse.body.error]).toEqual([400, 'invalid_grant']);
      // The team, its owner, and the webhook (its signing secret still opens under the KEK).
      const team = await runCli(['teams', 'show', slug], env);
      expect(team.code).toBe(0);
      expect(JSON.parse(team.stdout)).toMatchObject({ slug, members: [expect.objectContaining({ email, role: 'owner' })] });
      expect(await restored.deps.store.webhooks.findOne({ _id: webhook._id })).toMatchObject({ name: 'kept', ownerUserId: owner._id });
      // The audit chain verifies, and says the restore happened.
      const verify = await runCli(['audit', 'verify'], env);
      expect([verify.code, JSON.parse(verify.stdout)]).toEqual([0, expect.objectContaining({ verified: true })]);
      const restoredEvents = await runCli(['audit', 'list', '--event', 'backup.restored'], env);
      expect(restoredEvents.stdout.trim().split('\n')).toHaveLength(1);
      expect(JSON.parse(restoredEvents.stdout)).toMatchObject({ event: 'backup.restored', outcome: 'success', actor: { type: 'operator' } });
    } finally {
      await restored.stop();
    }
  } finally {
    await temporal.stop();
  }
  const created = await runCli(['audit', 'list', '--event', 'backup.created'], source.env);
  expect(JSON.parse(created.stdout.trim().split('\n')[0]!)).toMatchObject({ event: 'backup.created', actor: { type: 'operator' } });
}, 120_000);

describe('a restore that cannot be right writes nothing', () => {
  const empty = testDatabase('backup_refused');
  const documentsIn = async () => {
    const store = openTestStore(empty);
    try {
      return await collectionsWithDocuments(store);
    } finally {
      await store.close();
    }
  };

  it.each([
    [
      'into a database that holds documents',
      async (dir: string) => ({ dir, env: source.env }),
      /already holds documents \(.*\): restore into an empty database/,
    ],
    [
      'under another KEK',
      async (dir: string) => ({ dir, env: { ...empty.env, KEYFLOW_KEK: Buffer.alloc(32, 3).toString('base64') } }),
      /sealed under the KEK [0-9a-f]{16}, and this Keyflow's KEK is [0-9a-f]{16}: set KEYFLOW_KEK/,
    ],
    [
      'from a file changed after the backup',
      async (dir: string) => {
        const file = path.join(dir, 'users.jsonl.gz');
        fs.writeFileSync(file, gzipSync(gunzipSync(fs.readFileSync(file)).toString().replace('"role":"user"', '"role":"admin"')));
        return { dir, env: empty.env };
      },
      /users.jsonl.gz in .* is not the file the backup wrote/,
    ],
    [
      'from a backup that did not finish (no manifest)',
      async (dir: string) => {
        fs.rmSync(path.join(dir, 'manifest.json'));
        return { dir, env: empty.env };
      },
      /has no manifest.json: it is not a Keyflow backup, or one that did not finish/,
    ],
  ])('refuses a restore %s (exit 1, one line)', async (_case, prepare, message) => {
    const { dir, env } = await prepare(await backup());
    const r = await runCli(['restore', '--from', dir], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(await documentsIn()).toEqual([]);
  });

  it('refuses to write a backup into a folder that holds files', async () => {
    const dir = newDir();
    fs.writeFileSync(path.join(dir, 'something'), 'x');
    const r = await runCli(['backup', '--out', dir], source.env);
    expect([r.code, r.stderr]).toEqual([1, expect.stringMatching(/is not empty: name a new folder for the backup/)]);
  });
});
