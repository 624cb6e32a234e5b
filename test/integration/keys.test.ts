import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compactVerify, importJWK } from 'jose';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { KekMismatchError, loadKek, open, seal } from '../../lib/security/kek.js';
import { Keyring } from '../../lib/keys/keyring.js';
import { closeMlDsaWorkers, createMlDsa65, nativeMlDsaAvailable } from '../../lib/keys/mldsa.js';
import { Signer } from '../../lib/keys/signer.js';
import { ensureIndexes, openStore, type Store } from '../../lib/store/db.js';
import { testConfig } from '../support/harness.js';

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

  beforeEach(async () => {
    // A database of its own per test: key generation starts from nothing.
    store = openStore(testConfig({ MONGODB_DATABASE: `keys_${Date.now()}_${Math.floor(Math.random() * 1e6)}` }));
    await ensureIndexes(store);
  });
  afterEach(async () => {
    await store.db.dropDatabase();
    await store.close();
  });

  it('creates exactly one ML-DSA-65 and one RS256 key even when processes race', async () => {
    const rings = [1, 2, 3].map(() => new Keyring(store, kek, createMlDsa65('auto')));
    await Promise.all(rings.map((r) => r.ensureInitialKeys()));
    const docs = await store.signingKeys.find().toArray();
    expect(docs.map((d) => d.alg).sort()).toEqual(['ML-DSA-65', 'RS256']);
    const jwks = await rings[0]!.jwks();
    expect(jwks.keys).toHaveLength(2);
    const mldsa = jwks.keys.find((k) => k.alg === 'ML-DSA-65')!;
    expect(Object.keys(mldsa).sort()).toEqual(['alg', 'kid', 'kty', 'pub', 'use']);
    expect(mldsa).toMatchObject({ kty: 'AKP', use: 'sig' });
    expect(Buffer.from(mldsa.pub as string, 'base64url')).toHaveLength(1952);
    const rsa = jwks.keys.find((k) => k.alg === 'RS256')!;
    expect(rsa).toMatchObject({ kty: 'RSA', e: 'AQAB', use: 'sig' });
    expect(Buffer.from(rsa.n!, 'base64url')).toHaveLength(256);
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

  it('rotates: the new key signs, the old stays in the JWKS until retired', async () => {
    const ring = new Keyring(store, kek, createMlDsa65('auto'));
    await ring.ensureInitialKeys();
    const before = await ring.signingKey('RS256');
    const rotated = await ring.rotate('RS256');
    expect(rotated).toMatchObject({ alg: 'RS256', generation: 2, signing: true });
    const after = await ring.signingKey('RS256');
    expect(after.kid).toBe(rotated.kid);
    expect(after.kid).not.toBe(before.kid);
    expect((await ring.jwks()).keys.map((k) => k.kid)).toEqual(expect.arrayContaining([before.kid, after.kid]));
    await expect(ring.retire(after.kid)).rejects.toThrow(/rotate first/);
    await ring.retire(before.kid);
    const kids = (await ring.jwks()).keys.map((k) => k.kid);
    expect(kids).not.toContain(before.kid);
    expect(kids).toContain(after.kid);
    expect((await ring.list()).find((k) => k.kid === before.kid)).toMatchObject({ status: 'retired', signing: false });
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
