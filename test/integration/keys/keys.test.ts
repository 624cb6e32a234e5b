import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { calculateJwkThumbprint, compactVerify, importJWK } from 'jose';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { CLOCK_SKEW_SECONDS, KEY_CACHE_SECONDS, RETIRED_KEY_RETENTION_SECONDS, SIGNING_LEAD_SECONDS } from '../../../lib/model/key-phases.js';
import { SIGNING_ALGS } from '../../../lib/model/signing-keys.js';
import { KekMismatchError, loadKek, open, seal } from '../../../lib/security/kek.js';
import { Keyring } from '../../../lib/keys/keyring.js';
import { closeMlDsaWorkers, createMlDsa65, nativeMlDsaAvailable } from '../../../lib/keys/mldsa.js';
import { Signer } from '../../../lib/keys/signer.js';
import { verifyOwnJwt } from '../../../lib/keys/verifier.js';
import { ensureIndexes, type Store } from '../../../lib/store/db.js';
import { openTestStore, testDatabase } from '../../support/database.js';

// The noble tests start worker threads; end them so this test process can exit.
afterAll(() => closeMlDsaWorkers());

describe('key-encryption key', () => {
  const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'keyflow-kek-'));

  it('generates a 0600 file once and reuses it', () => {
    const dir = tmp();
    const first = loadKek(undefined, dir);
    const file = path.join(dir, 'kek.key');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(first.source).toBe('file');
    expect(loadKek(undefined, dir).key.equals(first.key)).toBe(true);
  });

  it('seals with AES-256-GCM bound to its record, and detects tampering and the wrong key', () => {
    const kek = loadKek(Buffer.alloc(32, 1), tmp());
    const sealed = seal(kek, Buffer.from('private key bytes'), 'kid-1');
    expect(sealed.ct).not.toContain(Buffer.from('private key bytes').toString('base64url'));
    expect(open(kek, sealed, 'kid-1').toString()).toBe('private key bytes');
    expect(() => open(kek, sealed, 'kid-2')).toThrow(/failed authentication/);
    const ct = Buffer.from(sealed.ct, 'base64url');
    ct[0] = ct[0]! ^ 1;
    const flipped = { ...sealed, ct: ct.toString('base64url') };
    expect(() => open(kek, flipped, 'kid-1')).toThrow(/failed authentication/);
    expect(() => open(loadKek(Buffer.alloc(32, 2), tmp()), sealed, 'kid-1')).toThrow(KekMismatchError);
  });
});

describe('keyring', () => {
  let store: Store;
  const kek = loadKek(Buffer.alloc(32, 9), os.tmpdir());

  let databases = 0;
  beforeEach(async () => {
    // A database of its own per test: key generation starts from nothing.
    store = openTestStore(testDatabase(`keys_${++databases}`));
    await ensureIndexes(store);
  });
  afterEach(async () => {
    await store.db.dropDatabase();
    await store.close();
  });

  it('creates exactly one key of each algorithm (ML-DSA-65, RS256, PS256, ES256) even when processes race', async () => {
    const rings = [1, 2, 3].map(() => new Keyring(store, kek, createMlDsa65('auto')));
    await Promise.all(rings.map((r) => r.ensureInitialKeys()));
    const docs = await store.signingKeys.find().toArray();
    expect(docs.map((d) => d.alg).sort()).toEqual(['ES256', 'ML-DSA-65', 'PS256', 'RS256']);
    const jwks = await rings[0]!.jwks();
    expect(jwks.keys).toHaveLength(4);
    const mldsa = jwks.keys.find((k) => k.alg === 'ML-DSA-65')!;
    expect(Object.keys(mldsa).sort()).toEqual(['alg', 'kid', 'kty', 'pub', 'use']);
    expect(mldsa).toMatchObject({ kty: 'AKP', use: 'sig' });
    expect(Buffer.from(mldsa.pub as string, 'base64url')).toHaveLength(1952);
    const rsa = jwks.keys.find((k) => k.alg === 'RS256')!;
    expect(rsa).toMatchObject({ kty: 'RSA', e: 'AQAB', use: 'sig' });
    expect(Buffer.from(rsa.n!, 'base64url')).toHaveLength(256);
    // PSS gets an RSA key of its own; ES256 a P-256 key: public members only, the kid their RFC 7638 thumbprint.
    const pss = jwks.keys.find((k) => k.alg === 'PS256')!;
    expect(pss).toMatchObject({ kty: 'RSA', e: 'AQAB', use: 'sig' });
    expect(pss.n).not.toBe(rsa.n);
    const ec = jwks.keys.find((k) => k.alg === 'ES256')!;
    expect(Object.keys(ec).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    expect(ec).toMatchObject({ kty: 'EC', crv: 'P-256', use: 'sig' });
    for (const key of [pss, ec]) expect(key.kid).toBe(await calculateJwkThumbprint(key));
  });

  it('stores private keys only encrypted', async () => {
    const ring = new Keyring(store, kek, createMlDsa65('auto'));
    await ring.ensureInitialKeys();
    for (const doc of await store.signingKeys.find().toArray()) {
      expect(Object.keys(doc.privateKey).sort()).toEqual(['alg', 'ct', 'iv', 'kekId', 'tag']);
      const plain = open(kek, doc.privateKey, doc._id);
      const raw = JSON.stringify(doc);
      expect(raw).not.toContain(plain.toString('base64url'));
      expect(raw).not.toContain(plain.toString('base64'));
      expect(raw).not.toContain(plain.toString('hex'));
      expect(doc.publicJwk).not.toHaveProperty('d');
      expect(doc.publicJwk).not.toHaveProperty('priv');
    }
    // A process with another KEK cannot use the keys, and says why.
    const other = new Keyring(store, loadKek(Buffer.alloc(32, 3), os.tmpdir()), createMlDsa65('auto'));
    await expect(other.signingKey('RS256')).rejects.toThrow(KekMismatchError);
  });

  it('signs with the first keys of a fresh install at once', async () => {
    const ring = new Keyring(store, kek, createMlDsa65('auto'));
    await ring.ensureInitialKeys();
    const keys = await ring.list();
    expect(keys.map((k) => [k.alg, k.phase])).toEqual([
      ['ES256', 'signing'],
      ['ML-DSA-65', 'signing'],
      ['PS256', 'signing'],
      ['RS256', 'signing'],
    ]);
    for (const k of keys) expect(k.signsFrom).toEqual(k.createdAt);
    for (const k of keys) expect((await ring.signingKey(k.alg)).kid).toBe(k.kid);
  });

  /** The clock the keyrings compute phases and cache ages with; each keyring stands for a process, all on one clock. */
  function testClock() {
    let t = Date.now();
    return { now: () => t, set: (ms: number) => (t = ms) };
  }
  const processes = (clock: { now: () => number }, n = 3) =>
    Array.from({ length: n }, () => new Keyring(store, kek, createMlDsa65('auto'), SIGNING_ALGS, clock.now));

  /** Whether `token` verifies against the JWK Set an RP fetched from `ring`. */
  async function verifiesAgainstJwksOf(ring: Keyring, token: string): Promise<boolean> {
    const { kid } = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { kid: string };
    const jwk = (await ring.jwks()).keys.find((k) => k.kid === kid);
    if (!jwk) return false;
    await compactVerify(token, await importJWK(jwk, 'RS256'));
    return true;
  }

  /** What goes wrong at this moment: a keyring signing with another key than `signs`, or a token one keyring signed that another's JWKS cannot verify. */
  async function problemsAt(label: string, rings: Keyring[], signs: string): Promise<string[]> {
    const problems: string[] = [];
    const tokens = await Promise.all(rings.map((r) => new Signer(r).sign({ sub: 'u', at: label }, { alg: 'RS256' })));
    for (const [i, token] of tokens.entries()) {
      const { kid } = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { kid: string };
      if (kid !== signs) problems.push(`${label}: process ${i} signs with ${kid}, not ${signs}`);
      for (const [j, ring] of rings.entries()) {
        if (!(await verifiesAgainstJwksOf(ring, token))) problems.push(`${label}: a token of process ${i} (kid ${kid}) is not in process ${j}'s JWKS`);
        if (!(await verifyOwnJwt(ring, token))) problems.push(`${label}: process ${j} does not verify a token of process ${i}`);
      }
    }
    return problems;
  }

  it('rotates in stages: every process publishes the new key before any signs with it', async () => {
    const clock = testClock();
    const rings = processes(clock);
    await rings[0]!.ensureInitialKeys();
    const old = (await rings[0]!.signingKey('RS256')).kid;
    // Every process has read the keys, and keeps them up to KEY_CACHE_SECONDS.
    for (const ring of rings) expect((await ring.signingKey('RS256')).kid).toBe(old);
    const start = clock.now();
    clock.set(start + 10_000);
    const rotated = await rings[1]!.rotate('RS256');
    const at = (seconds: number) => clock.set(rotated.createdAt.getTime() + seconds * 1000);

    const problems: string[] = [];
    const moments = [0, 15, KEY_CACHE_SECONDS + 1, SIGNING_LEAD_SECONDS / 2, SIGNING_LEAD_SECONDS - 1, SIGNING_LEAD_SECONDS, SIGNING_LEAD_SECONDS + 1];
    for (const s of [...moments, SIGNING_LEAD_SECONDS + KEY_CACHE_SECONDS + 1, SIGNING_LEAD_SECONDS + 3600]) {
      at(s);
      const signs = s < SIGNING_LEAD_SECONDS ? old : rotated.kid;
      problems.push(...(await problemsAt(`+${s} s`, rings, signs)));
      // Once every process has reloaded, every JWKS has both keys.
      if (s > KEY_CACHE_SECONDS)
        for (const [i, ring] of rings.entries()) {
          const kids = (await ring.jwks()).keys.map((k) => k.kid);
          if (!kids.includes(rotated.kid) || !kids.includes(old)) problems.push(`+${s} s: process ${i}'s JWKS lacks a key: ${kids.join(' ')}`);
        }
    }
    expect(problems).toEqual([]);

    expect(rotated).toMatchObject({ alg: 'RS256', generation: 2, phase: 'published', signing: false, publishedUntil: null });
    expect(rotated.signsFrom.getTime() - rotated.createdAt.getTime()).toBe(SIGNING_LEAD_SECONDS * 1000);
    // The lead time covers every process's cache and every cached JWKS response.
    expect(SIGNING_LEAD_SECONDS).toBeGreaterThanOrEqual(KEY_CACHE_SECONDS + 300);
    at(SIGNING_LEAD_SECONDS + 1);
    const phases = Object.fromEntries((await rings[2]!.list()).filter((k) => k.alg === 'RS256').map((k) => [k.kid, k.phase]));
    expect(phases).toEqual({ [old]: 'previous', [rotated.kid]: 'signing' });
  });

  it('keeps a retired key in every JWKS until its published-until time, then nowhere', async () => {
    const clock = testClock();
    const rings = processes(clock, 2);
    await rings[0]!.ensureInitialKeys();
    const old = (await rings[0]!.signingKey('RS256')).kid;
    const rotated = await rings[0]!.rotate('RS256');
    const at = (seconds: number) => clock.set(rotated.createdAt.getTime() + seconds * 1000);

    // The old key signs until the new one takes over: it cannot be retired before.
    at(SIGNING_LEAD_SECONDS - 1);
    const last = await new Signer(rings[1]!).sign({ sub: 'u', exp: Math.floor(clock.now() / 1000) + 3600 }, { alg: 'RS256' });
    await expect(rings[1]!.retire(old)).rejects.toThrow(`signs RS256 tokens until ${rotated.signsFrom.toISOString()}`);

    at(SIGNING_LEAD_SECONDS);
    await expect(rings[1]!.retire(rotated.kid)).rejects.toThrow(/signs RS256 tokens now: rotate first/);
    const retired = await rings[1]!.retire(old);
    expect(retired).toMatchObject({ kid: old, status: 'retired', phase: 'retiring', signing: false });
    expect(retired.publishedUntil!.getTime() - retired.retiredAt!.getTime()).toBe(RETIRED_KEY_RETENTION_SECONDS * 1000);
    // Until the last token it signed has expired, with the clock skew margin.
    expect(retired.publishedUntil!.getTime()).toBeGreaterThanOrEqual((clock.now() / 1000 + 3600 + CLOCK_SKEW_SECONDS) * 1000);
    // Retiring it again changes nothing.
    at(SIGNING_LEAD_SECONDS + 60);
    expect(await rings[0]!.retire(old)).toEqual(retired);

    const until = (retired.publishedUntil!.getTime() - rotated.createdAt.getTime()) / 1000;
    for (const s of [SIGNING_LEAD_SECONDS + KEY_CACHE_SECONDS + 1, until - 60, until - 1, until, until + KEY_CACHE_SECONDS + 1]) {
      at(s);
      const published = s < until;
      for (const ring of rings) {
        expect([s, (await ring.jwks()).keys.some((k) => k.kid === old)]).toEqual([s, published]);
        expect([s, await verifiesAgainstJwksOf(ring, last)]).toEqual([s, published]);
        expect([s, (await verifyOwnJwt(ring, last)) !== null]).toEqual([s, published]);
        expect([s, (await ring.list()).find((k) => k.kid === old)!.phase]).toEqual([s, published ? 'retiring' : 'removed']);
        expect((await ring.signingKey('RS256')).kid).toBe(rotated.kid);
      }
    }
  });

  const implementations = nativeMlDsaAvailable() ? (['native', 'noble'] as const) : (['noble'] as const);

  it.each(implementations)('signs JWTs that verify with jose (RS256) and noble (ML-DSA-65), %s ML-DSA', async (impl) => {
    const ring = new Keyring(store, kek, createMlDsa65(impl));
    await ring.ensureInitialKeys();
    const signer = new Signer(ring);
    const claims = { iss: 'https://issuer.example', sub: 'user-1', n: impl };
    const jwks = await ring.jwks();

    const rs = await signer.sign(claims, { alg: 'RS256', typ: 'at+jwt' });
    const rsaJwk = jwks.keys.find((k) => k.alg === 'RS256')!;
    const verified = await compactVerify(rs, await importJWK(rsaJwk, 'RS256'));
    expect(verified.protectedHeader).toEqual({ alg: 'RS256', kid: rsaJwk.kid, typ: 'at+jwt' });
    expect(JSON.parse(Buffer.from(verified.payload).toString())).toEqual(claims);

    const ml = await signer.sign(claims, { alg: 'ML-DSA-65' });
    const [h, p, s] = ml.split('.');
    const mlJwk = jwks.keys.find((k) => k.alg === 'ML-DSA-65')!;
    expect(JSON.parse(Buffer.from(h!, 'base64url').toString())).toEqual({ alg: 'ML-DSA-65', kid: mlJwk.kid });
    const pub = Buffer.from(mlJwk.pub as string, 'base64url');
    expect(ml_dsa65.verify(Buffer.from(s!, 'base64url'), Buffer.from(`${h}.${p}`), pub)).toBe(true);
    expect(ml_dsa65.verify(Buffer.from(s!, 'base64url'), Buffer.from(`${h}.${p}x`), pub)).toBe(false);
  });

  (nativeMlDsaAvailable() ? it : it.skip)('uses keys made by one ML-DSA implementation with the other', async () => {
    await new Keyring(store, kek, createMlDsa65('native')).ensureInitialKeys();
    const noble = new Signer(new Keyring(store, kek, createMlDsa65('noble')));
    const jwt = await noble.sign({ sub: 'x' }, { alg: 'ML-DSA-65' });
    const [h, p, s] = jwt.split('.');
    const pub = (await store.signingKeys.findOne({ alg: 'ML-DSA-65' }))!.publicJwk.pub!;
    expect(ml_dsa65.verify(Buffer.from(s!, 'base64url'), Buffer.from(`${h}.${p}`), Buffer.from(pub, 'base64url'))).toBe(true);
  });
});
