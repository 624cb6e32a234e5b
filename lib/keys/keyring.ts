// Signing keys: generation on first start, rotation, retirement, the JWKS, and
// the current key per algorithm. Processes cache what they read for a short
// time so that JWKS and signing never wait on MongoDB in the hot path.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign as nodeSign } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type { SigningAlg, SigningKeyDoc } from '../domain/signing-keys.js';
import type { Store } from '../store/db.js';
import { findSigningKey, hasSigningKeyGeneration, insertSigningKey, listSigningKeys, newestSigningKey, retireSigningKey } from '../store/signing-keys.js';
import { open, seal, type Kek } from '../security/kek.js';
import type { MlDsa65, SignFn } from './mldsa.js';

export const SIGNING_ALGS: readonly SigningAlg[] = ['ML-DSA-65', 'RS256'];

export interface SigningKey {
  kid: string;
  alg: SigningAlg;
  sign: SignFn;
}

export interface KeyInfo {
  kid: string;
  alg: SigningAlg;
  generation: number;
  status: 'active' | 'retired';
  signing: boolean;
  createdAt: Date;
  retiredAt: Date | null;
}

interface Snapshot {
  at: number;
  docs: SigningKeyDoc[];
  current: Map<SigningAlg, SigningKey>;
  /** Every active key: what Keyflow verifies its own tokens with. */
  jwks: { keys: JWK[] };
  /** The active keys of the published algorithms: the JWKS. */
  published: { keys: JWK[] };
}

const CACHE_MS = 30_000;

export class Keyring {
  private snapshot: Snapshot | undefined;
  private loading: Promise<Snapshot> | undefined;

  /**
   * `published`: the algorithms whose keys the JWKS lists (all by default).
   * Keys of every algorithm are still made and verify Keyflow's own tokens
   * (one signed before ML-DSA was withheld is still good until it expires).
   */
  constructor(
    private readonly store: Store,
    private readonly kek: Kek,
    private readonly mldsa: MlDsa65,
    private readonly published: readonly SigningAlg[] = SIGNING_ALGS,
  ) {}

  /** Creates the first key of each algorithm unless it exists; safe when several processes race. */
  async ensureInitialKeys(): Promise<void> {
    for (const alg of SIGNING_ALGS) {
      if (!(await hasSigningKeyGeneration(this.store, alg, 1))) await this.insertKey(alg, 1);
    }
    this.snapshot = undefined;
  }

  /** A new key for `alg` that signs from now on; the previous ones stay in the JWKS until retired. */
  async rotate(alg: SigningAlg): Promise<KeyInfo> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const latest = await newestSigningKey(this.store, alg);
      const doc = await this.insertKey(alg, (latest?.generation ?? 0) + 1);
      if (doc) {
        this.snapshot = undefined;
        return toInfo(doc, true);
      }
    }
    throw new Error(`could not rotate the ${alg} key: concurrent rotations kept conflicting`);
  }

  /** Removes a key from the JWKS. The key that currently signs for its algorithm cannot be retired. */
  async retire(kid: string): Promise<KeyInfo> {
    const doc = await findSigningKey(this.store, kid);
    if (!doc) throw new Error(`no signing key with kid ${kid}`);
    const newest = await newestSigningKey(this.store, doc.alg, 'active');
    if (newest?._id === kid) throw new Error(`key ${kid} signs ${doc.alg} tokens now: rotate first, then retire it`);
    const updated = await retireSigningKey(this.store, doc);
    this.snapshot = undefined;
    return toInfo(updated!, false);
  }

  async list(): Promise<KeyInfo[]> {
    const docs = await listSigningKeys(this.store);
    const signing = new Set(SIGNING_ALGS.map((alg) => newestActive(docs, alg)?._id));
    return docs.map((d) => toInfo(d, signing.has(d._id)));
  }

  /** The JWK Set of every active key of a published algorithm. */
  async jwks(): Promise<{ keys: JWK[] }> {
    return (await this.load()).published;
  }

  /** The public JWK of an active key, for verifying Keyflow's own tokens; refreshes once for an unknown kid (a rotation elsewhere). */
  async publicJwk(kid: string): Promise<(JWK & { alg: string }) | null> {
    let snapshot = await this.load();
    if (!snapshot.jwks.keys.some((k) => k.kid === kid) && Date.now() - snapshot.at > 1_000) {
      this.snapshot = undefined;
      snapshot = await this.load();
    }
    return (snapshot.jwks.keys.find((k) => k.kid === kid) as (JWK & { alg: string }) | undefined) ?? null;
  }

  /** The key that signs new tokens of `alg`. */
  async signingKey(alg: SigningAlg): Promise<SigningKey> {
    const key = (await this.load()).current.get(alg);
    if (!key) throw new Error(`no active ${alg} signing key: run the api or worker once to generate keys`);
    return key;
  }

  private async load(): Promise<Snapshot> {
    if (this.snapshot && Date.now() - this.snapshot.at < CACHE_MS) return this.snapshot;
    this.loading ??= this.read().finally(() => (this.loading = undefined));
    this.snapshot = await this.loading;
    return this.snapshot;
  }

  private async read(): Promise<Snapshot> {
    const docs = await listSigningKeys(this.store, { status: 'active' });
    const current = new Map<SigningAlg, SigningKey>();
    for (const alg of SIGNING_ALGS) {
      const doc = newestActive(docs, alg);
      // Reuse the previous signer when the key did not change: importing keys is not free.
      const previous = this.snapshot?.current.get(alg);
      if (doc) current.set(alg, previous?.kid === doc._id ? previous : { kid: doc._id, alg, sign: this.signerFor(doc) });
    }
    const keys: JWK[] = docs.map((d) => ({ ...d.publicJwk, kid: d._id, alg: d.alg, use: 'sig' }));
    return { at: Date.now(), docs, current, jwks: { keys }, published: { keys: keys.filter((k) => this.published.includes(k.alg as SigningAlg)) } };
  }

  private signerFor(doc: SigningKeyDoc): SignFn {
    const secret = open(this.kek, doc.privateKey, doc._id, `signing key ${doc._id}`);
    if (doc.alg === 'ML-DSA-65') return this.mldsa.signer(secret, Buffer.from(doc.publicJwk.pub!, 'base64url'));
    const key: KeyObject = createPrivateKey({ key: secret, format: 'der', type: 'pkcs8' });
    // RSASSA-PKCS1-v1_5 with SHA-256; the callback form runs off the event loop.
    return (data) => new Promise((resolve, reject) => nodeSign('sha256', data, key, (err, sig) => (err ? reject(err) : resolve(sig))));
  }

  private async insertKey(alg: SigningAlg, generation: number): Promise<SigningKeyDoc | null> {
    const { publicJwk, secret } = this.generate(alg);
    const kid = await calculateJwkThumbprint(publicJwk);
    const doc: SigningKeyDoc = {
      _id: kid,
      alg,
      generation,
      status: 'active',
      publicJwk,
      privateKey: seal(this.kek, secret, kid),
      createdAt: new Date(),
      retiredAt: null,
    };
    // Null when another process created this generation first.
    return (await insertSigningKey(this.store, doc)) ? doc : null;
  }

  private generate(alg: SigningAlg): { publicJwk: Record<string, string>; secret: Buffer } {
    if (alg === 'ML-DSA-65') {
      const { seed, publicKey } = this.mldsa.generate();
      return { publicJwk: { kty: 'AKP', alg, pub: Buffer.from(publicKey).toString('base64url') }, secret: seed };
    }
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const { kty, n, e } = createPublicKey(privateKey).export({ format: 'jwk' }) as Record<string, string>;
    return { publicJwk: { kty: kty!, n: n!, e: e! }, secret: privateKey.export({ format: 'der', type: 'pkcs8' }) };
  }
}

function newestActive(docs: SigningKeyDoc[], alg: SigningAlg): SigningKeyDoc | undefined {
  return docs.filter((d) => d.alg === alg && d.status === 'active').sort((a, b) => b.generation - a.generation)[0];
}

function toInfo(d: SigningKeyDoc, signing: boolean): KeyInfo {
  return { kid: d._id, alg: d.alg, generation: d.generation, status: d.status, signing, createdAt: d.createdAt, retiredAt: d.retiredAt };
}

/** A key as the operator CLI prints it (`keys list|rotate|retire`), in the API's snake_case. */
export const keyInfoJson = (k: KeyInfo) => ({
  kid: k.kid,
  alg: k.alg,
  generation: k.generation,
  status: k.status,
  signing: k.signing,
  created_at: k.createdAt.toISOString(),
  retired_at: k.retiredAt?.toISOString() ?? null,
});
