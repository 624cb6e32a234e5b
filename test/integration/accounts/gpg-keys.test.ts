// GPG public keys at /api/oauth/me/gpg_keys and /account/gpg-keys: keys made
// at test time with openpgp (RSA, Ed25519, expired, revoked) are accepted or
// refused in words; fingerprints and key ids are the ones openpgp reports;
// scopes, another user's key (404) and bad input on every endpoint (JSON 4xx).
import { armor, enums, generateKey, readKey, revokeKey, type Key } from 'openpgp';
import { createHash } from 'node:crypto';
import { addGpgKey } from '../../../lib/store/gpg-keys.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { requestJson } from '../../support/http.js';
import { newTestRp, runCodeFlow, type TestRp } from '../../support/token-flow.js';
import type { HttpUser } from '../../../tools/fixtures/http-user.js';

const BASE = '/api/oauth/me/gpg_keys';
let rp: TestRp;

/** Armored keys made once for the file. */
const keys = {} as Record<'rsa' | 'ed' | 'other' | 'expired' | 'revoked' | 'rsaPrivate', string>;

const api = useTestApi();
beforeAll(async () => {
  rp = await newTestRp(api, { allowedScopes: ['openid', 'gpg:read', 'gpg:write'] });
  const [rsa, ed, other, expired, toRevoke] = await Promise.all([
    generateKey({ type: 'rsa', rsaBits: 2048, userIDs: [{ name: 'Rita RSA', email: 'rita@example.com' }] }),
    generateKey({ type: 'curve25519', userIDs: [{ name: 'Ed Edwards', email: 'ed@example.com' }] }),
    generateKey({ type: 'curve25519', userIDs: [{ name: 'Other' }] }),
    // Valid for an hour, made two days ago.
    generateKey({ type: 'curve25519', userIDs: [{ name: 'Old' }], keyExpirationTime: 3600, date: new Date(Date.now() - 2 * 86_400_000) }),
    generateKey({ type: 'curve25519', userIDs: [{ name: 'Revoked' }], format: 'object' }),
  ]);
  const revoked = await revokeKey({ key: toRevoke.privateKey, format: 'armored' });
  Object.assign(keys, {
    rsa: rsa.publicKey,
    ed: ed.publicKey,
    other: other.publicKey,
    expired: expired.publicKey,
    revoked: revoked.publicKey,
    rsaPrivate: rsa.privateKey,
  });
}, 60_000);

async function tokenFor(scope: string) {
  const flow = await runCodeFlow(api, rp, scope);
  return { token: flow.tokens.access_token as string, agent: flow.agent, userId: flow.user._id };
}

const call = (token: string | null, method: string, path = '', body?: unknown, contentType?: string) =>
  requestJson(`${api.url}${BASE}${path}`, method, { token, body, contentType });

const add = (token: string, armored: string) => call(token, 'POST', '', { armored_public_key: armored });

/** What openpgp itself says about a key, in the API's terms. */
async function expected(armored: string) {
  const key: Key = await readKey({ armoredKey: armored });
  return {
    fingerprint: key.getFingerprint().toUpperCase(),
    key_id: key.getKeyID().toHex().toUpperCase(),
    subkeys: key.getSubkeys().map((s) => ({ fingerprint: s.getFingerprint().toUpperCase(), key_id: s.getKeyID().toHex().toUpperCase() })),
  };
}

describe('adding keys', () => {
  let owner: Awaited<ReturnType<typeof tokenFor>>;
  beforeAll(async () => {
    owner = await tokenFor('openid gpg:read gpg:write');
  });

  test('an RSA key is added with the fingerprint and key id openpgp reports, and read back', async () => {
    const r = await add(owner.token, keys.rsa);
    expect(r.res.status).toBe(201);
    const want = await expected(keys.rsa);
    expect(r.body).toMatchObject({
      fingerprint: want.fingerprint,
      key_id: want.key_id,
      name: 'Rita RSA <rita@example.com>',
      algorithm: 'rsa2048',
      expires_at: null,
    });
    expect(r.body.fingerprint).toMatch(/^[0-9A-F]{40}$/);
    expect(r.body.key_id).toBe(want.fingerprint.slice(-16));
    expect(r.body.subkeys).toEqual([expect.objectContaining({ ...want.subkeys[0], algorithm: 'rsa2048', expires_at: null })]);
    expect(r.body).not.toHaveProperty('armored');
    expect(r.res.headers.get('location')).toBe(`${api.deps.config.issuer}${BASE}/${r.body.id}`);
    const got = await call(owner.token, 'GET', `/${r.body.id}`);
    expect([got.res.status, got.body]).toEqual([200, r.body]);
  });

  test('an Ed25519 key is added (with its X25519 subkey), a second add of it is 409, and the list shows both keys', async () => {
    const r = await add(owner.token, keys.ed);
    expect(r.res.status).toBe(201);
    const want = await expected(keys.ed);
    expect(r.body).toMatchObject({ fingerprint: want.fingerprint, key_id: want.key_id, name: 'Ed Edwards <ed@example.com>', algorithm: 'ed25519' });
    expect(r.body.subkeys).toEqual([expect.objectContaining({ ...want.subkeys[0], algorithm: 'x25519' })]);
    const again = await add(owner.token, `\n${keys.ed}\n`);
    expect([again.res.status, again.body.error]).toEqual([409, 'conflict']);
    expect(again.body.error_description).toContain(want.fingerprint);
    const list = await call(owner.token, 'GET');
    expect(list.res.status).toBe(200);
    expect(list.body.gpg_keys.map((k: Json) => k.fingerprint)).toEqual([(await expected(keys.rsa)).fingerprint, want.fingerprint]);
  });

  test.each([
    ['a private key', () => keys.rsaPrivate, 'is a private key'],
    ['garbage', () => 'hello, this is not a key', 'is not an ASCII-armored OpenPGP public key'],
    ['an expired key', () => keys.expired, 'this key expired on'],
    ['a revoked key', () => keys.revoked, 'this key is revoked'],
    ['two armored blocks', () => `${keys.rsa}\n${keys.ed}`, 'more than one armored block'],
    ['a block that is not a key', () => armor(enums.armor.message, new Uint8Array([1, 2, 3])), 'not a public key'],
    ['a public key block of junk', () => armor(enums.armor.publicKey, new Uint8Array([1, 2, 3, 4, 5])), 'could not be read'],
    ['over 64 KiB', () => `${keys.rsa}${' '.repeat(65 * 1024)}x`, 'at most 64 KiB'],
    ['an empty string', () => '   ', 'must not be empty'],
  ])('%s is refused with 400 invalid_request saying why', async (_what, armored, words) => {
    const r = await add(owner.token, armored());
    expect([r.res.status, r.body.error]).toEqual([400, 'invalid_request']);
    expect(r.body.error_description).toContain('armored_public_key');
    expect(r.body.error_description).toContain(words);
  });

  test('two keys in one armored block are refused', async () => {
    const [a, b] = await Promise.all([readKey({ armoredKey: keys.rsa }), readKey({ armoredKey: keys.other })]);
    const both = armor(enums.armor.publicKey, new Uint8Array([...a.write(), ...b.write()]));
    const r = await add(owner.token, both);
    expect([r.res.status, r.body.error, r.body.error_description]).toEqual([400, 'invalid_request', expect.stringContaining('more than one key')]);
  });

  test('another user may add the same public key; neither sees nor deletes the other one', async () => {
    const other = await tokenFor('openid gpg:read gpg:write');
    const mine = await add(other.token, keys.rsa);
    expect(mine.res.status).toBe(201);
    const owners = (await call(owner.token, 'GET')).body.gpg_keys as Json[];
    const ownersRsa = owners.find((k) => k.fingerprint === mine.body.fingerprint);
    expect(ownersRsa.id).not.toBe(mine.body.id);
    for (const method of ['GET', 'DELETE']) {
      const r = await call(other.token, method, `/${ownersRsa.id}`);
      expect([method, r.res.status, r.body.error]).toEqual([method, 404, 'not_found']);
    }
    expect((await call(owner.token, 'GET', `/${ownersRsa.id}`)).res.status).toBe(200);
    expect((await call(other.token, 'GET')).body.gpg_keys.map((k: Json) => k.id)).toEqual([mine.body.id]);
  });

  test('DELETE removes a key (204), then it is 404', async () => {
    const r = await add(owner.token, keys.other);
    expect(r.res.status).toBe(201);
    const del = await call(owner.token, 'DELETE', `/${r.body.id}`);
    expect(del.res.status).toBe(204);
    expect((await call(owner.token, 'GET', `/${r.body.id}`)).res.status).toBe(404);
    expect((await call(owner.token, 'DELETE', `/${r.body.id}`)).res.status).toBe(404);
    expect((await call(owner.token, 'GET')).body.gpg_keys.map((k: Json) => k.id)).not.toContain(r.body.id);
  });

  test('bad input on every endpoint is a JSON 4xx naming the problem, never a 500', async () => {
    const cases: [string, string, unknown, string | undefined, number, string][] = [
      ['POST', '', {}, undefined, 400, 'armored_public_key'],
      ['POST', '', { armored_public_key: 42 }, undefined, 400, 'armored_public_key: must be a string'],
      ['POST', '', [keys.rsa], undefined, 400, 'expected object'],
      ['POST', '', keys.rsa, 'text/plain', 400, 'application/json'],
      ['POST', '', '{"armored_public_key":', undefined, 400, 'could not be read'],
      ['POST', '', { armored_public_key: 'x'.repeat(300 * 1024) }, undefined, 413, 'too large'],
      ['GET', '/not-a-key-id', undefined, undefined, 400, 'key id'],
      ['DELETE', `/${'a'.repeat(5000)}`, undefined, undefined, 400, 'key id'],
      ['GET', '/00000000-0000-4000-8000-000000000000', undefined, undefined, 404, 'no such GPG key'],
      ['PATCH', '/00000000-0000-4000-8000-000000000000', {}, undefined, 405, 'not allowed'],
      ['PUT', '', {}, undefined, 405, 'not allowed'],
    ];
    for (const [method, path, body, type, status, words] of cases) {
      const r = await call(owner.token, method, path, body, type);
      expect([method, path, r.res.status, r.res.headers.get('content-type')]).toEqual([method, path, status, expect.stringContaining('application/json')]);
      expect(r.body.error_description).toContain(words);
    }
  });
});

describe('the cap of 100 keys per user', () => {
  test('holds under 10 parallel adds at 95 keys; refused adds are 409 with the reason', async () => {
    const owner = await tokenFor('openid gpg:read gpg:write');
    // 95 keys through the store (generating them with openpgp would take minutes); their contents do not matter here.
    for (let i = 0; i < 95; i++) {
      const fingerprint = createHash('sha1').update(`${owner.userId}:${i}`).digest('hex').toUpperCase();
      await addGpgKey(api.deps.store, owner.userId, {
        fingerprint,
        keyId: fingerprint.slice(-16),
        name: `Key ${i}`,
        algorithm: 'eddsaLegacy',
        subkeys: [],
        createdAt: new Date(),
        expiresAt: null,
        armored: 'not read by this test',
      });
    }
    const fresh = await Promise.all(Array.from({ length: 12 }, (_, i) => generateKey({ type: 'curve25519', userIDs: [{ name: `Parallel ${i}` }] })));
    const answers = await Promise.all(fresh.slice(0, 10).map((k) => add(owner.token, k.publicKey)));
    const stored = () => api.deps.store.gpgKeys.countDocuments({ userId: owner.userId });
    const accepted = answers.filter((a) => a.res.status === 201).length;
    for (const a of answers.filter((x) => x.res.status !== 201)) {
      expect(a.res.status).toBe(409);
      expect(a.body.error_description).toMatch(/already have 100 GPG keys/);
    }
    expect(accepted).toBeLessThanOrEqual(5);
    expect(await stored()).toBe(95 + accepted);
    // Racing adds at the cap may all be refused; one at a time, the keys fill the rest exactly.
    for (const k of fresh.slice(10).concat(fresh.slice(0, 10))) if ((await stored()) < 100) await add(owner.token, k.publicKey);
    expect(await stored()).toBe(100);
    expect((await add(owner.token, keys.other)).res.status).toBe(409);
    expect((await call(owner.token, 'GET')).body.gpg_keys).toHaveLength(100);
  }, 120_000);
});

describe('scopes', () => {
  test('without a token 401; without gpg:read or gpg:write 403 insufficient_scope', async () => {
    const readOnly = await tokenFor('openid gpg:read');
    const none = await tokenFor('openid');
    expect((await call(null, 'GET')).res.status).toBe(401);
    expect((await call(readOnly.token, 'GET')).res.status).toBe(200);
    const cases: [string, string, string, unknown][] = [
      [readOnly.token, 'POST', '', { armored_public_key: keys.rsa }],
      [readOnly.token, 'DELETE', '/00000000-0000-4000-8000-000000000000', undefined],
      [none.token, 'GET', '', undefined],
      [none.token, 'GET', '/00000000-0000-4000-8000-000000000000', undefined],
    ];
    for (const [token, method, path, body] of cases) {
      const r = await call(token, method, path, body);
      expect([method, path, r.res.status, r.body.error]).toEqual([method, path, 403, 'insufficient_scope']);
      expect(r.res.headers.get('www-authenticate')).toContain('insufficient_scope');
    }
    expect((await call(readOnly.token, 'GET')).body.gpg_keys).toEqual([]);
  });
});

describe('the /account/gpg-keys page', () => {
  async function page(agent: HttpUser) {
    const res = await agent.request('/account/gpg-keys');
    return { status: res.status, html: await res.text() };
  }

  test('lists, adds, refuses in words and deletes, with CSRF on every form', async () => {
    const { agent, token } = await tokenFor('openid gpg:read gpg:write');
    const first = await page(agent);
    expect([first.status, first.html]).toEqual([200, expect.stringContaining('No GPG keys yet.')]);

    const added = await agent.submit(first.html, '/account/gpg-keys', { armored_public_key: keys.ed });
    expect(new URL(added.url).pathname).toBe('/account/gpg-keys');
    const listed = await added.res.text();
    const want = await expected(keys.ed);
    expect(listed).toContain(`data-gpg-key="${want.fingerprint}"`);
    expect(listed).toContain('Ed Edwards &lt;ed@example.com&gt;');
    expect((await call(token, 'GET')).body.gpg_keys.map((k: Json) => k.fingerprint)).toEqual([want.fingerprint]);

    const refused = await agent.submit(listed, '/account/gpg-keys', { armored_public_key: keys.revoked });
    const refusedHtml = await refused.res.text();
    expect([refused.res.status, refusedHtml]).toEqual([400, expect.stringContaining('this key is revoked')]);
    expect(refusedHtml).toContain('role="alert"');
    const dup = await agent.submit(listed, '/account/gpg-keys', { armored_public_key: keys.ed });
    expect([dup.res.status, await dup.res.text()]).toEqual([409, expect.stringContaining('already added')]);

    // Without the CSRF token nothing changes.
    const forged = await agent.request('/account/gpg-keys', {
      method: 'POST',
      body: new URLSearchParams({ armored_public_key: keys.rsa }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(forged.status).toBe(400);
    expect((await call(token, 'GET')).body.gpg_keys).toHaveLength(1);

    const id = (await call(token, 'GET')).body.gpg_keys[0].id as string;
    const gone = await agent.submit(listed, `/account/gpg-keys/${id}/delete`, {});
    expect(await gone.res.text()).toContain('No GPG keys yet.');
    expect((await call(token, 'GET')).body.gpg_keys).toEqual([]);
    const missing = await agent.submit(listed, `/account/gpg-keys/${id}/delete`, {});
    expect([missing.res.status, await missing.res.text()]).toEqual([404, expect.stringContaining('No such GPG key.')]);
  });
});
