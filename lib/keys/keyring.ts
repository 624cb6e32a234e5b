// Signing keys: generation on first start, rotation, retirement, the JWKS, and
// the current key per algorithm. Processes cache what they read for a short
// time so that JWKS and signing never wait on MongoDB in the hot path; what a
// key does at a given moment (its phase) follows from the cached documents and
// the clock (model/key-phases.ts), so a staged key starts signing on time
// without a reload.
import { constants, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign as nodeSign } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { isPublished, KEY_CACHE_SECONDS, keyPhase, publishedUntilFor, signingKeyAt, signsFromFor, type KeyPhase } from '../model/key-phases.js';
import { SIGNING_ALGS, type SigningAlg, type SigningKeyDoc } from '../model/signing-keys.js';
import type { Store } from '../store/db.js';
import { hasSigningKeyGeneration, insertSigningKey, listSigningKeys, newestSigningKey, retireSigningKey } from '../store/signing-keys.js';
import { open, seal, type Kek } from '../security/kek.js';
import type { MlDsa65, SignFn } from './mldsa.js';

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
  phase: KeyPhase;
  signing: boolean;
  createdAt: Date;
  /** When it signs (or signed) from. */
  signsFrom: Date;
  retiredAt: Date | null;
  /** When a retired key leaves the JWKS. */
  publishedUntil: Date | null;
}

interface Snapshot {
  at: number;
  docs: SigningKeyDoc[];
  /** The public JWK of every key, by kid. */
  jwks: Map<string, JWK & { alg: string }>;
}

const CACHE_MS = KEY_CACHE_SECONDS * 1000;

export class Keyring {
  private snapshot: Snapshot | undefined;
  private loading: Promise<Snapshot> | undefined;
  /** Imported private keys by kid: importing keys is not free. */
  private readonly signers = new Map<string, SigningKey>();

  /**
   * `published`: the algorithms whose keys the JWKS lists (all by default).
   * Keys of every algorithm are still made and verify Keyflow's own tokens
   * (one signed before ML-DSA was withheld is still good until it expires).
   * `now`: the clock phases are computed with (tests move it on).
   */
  constructor(
    private readonly store: Store,
    private readonly kek: Kek,
    private readonly mldsa: MlDsa65,
    private readonly published: readonly SigningAlg[] = SIGNING_ALGS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Creates the first key of each algorithm unless it exists; safe when several processes race. */
  async ensureInitialKeys(): Promise<void> {
    for (const alg of SIGNING_ALGS) {
      if (!(await hasSigningKeyGeneration(this.store, alg, 1))) await this.insertKey(alg, 1);
    }
    this.snapshot = undefined;
  }

  /**
   * A new key for `alg`, published at once and signing after the lead time
   * (the first key of an algorithm signs at once); the previous ones stay in
   * the JWKS until retired.
   */
  async rotate(alg: SigningAlg): Promise<KeyInfo> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const latest = await newestSigningKey(this.store, alg);
      const doc = await this.insertKey(alg, (latest?.generation ?? 0) + 1);
      if (doc) {
        this.snapshot = undefined;
        return this.infoOf(doc._id);
      }
    }
    throw new Error(`could not rotate the ${alg} key: concurrent rotations kept conflicting`);
  }

  /** Retires a key: it stays in the JWKS until the tokens it signed have expired. The key that signs now cannot be retired. */
  async retire(kid: string): Promise<KeyInfo> {
    const docs = await listSigningKeys(this.store);
    const doc = docs.find((d) => d._id === kid);
    if (!doc) throw new Error(`no signing key with kid ${kid}`);
    if (doc.status === 'active') {
      const now = new Date(this.now());
      if (keyPhase(doc, docs, now) === 'signing') throw new Error(signingKeyRefusal(doc, docs, now));
      await retireSigningKey(this.store, kid, now, publishedUntilFor(now));
      this.snapshot = undefined;
    }
    // Retired already: its first retirement's times stand.
    return this.infoOf(kid);
  }

  async list(): Promise<KeyInfo[]> {
    const docs = await listSigningKeys(this.store);
    const now = new Date(this.now());
    return docs.map((d) => toInfo(d, keyPhase(d, docs, now)));
  }

  /** The JWK Set of every published key of a published algorithm. */
  async jwks(): Promise<{ keys: JWK[] }> {
    const keys = this.publishedJwks(await this.load());
    return { keys: keys.filter((k) => this.published.includes(k.alg as SigningAlg)) };
  }

  /** The public JWK of a published key, for verifying Keyflow's own tokens; refreshes once for an unknown kid (a rotation elsewhere). */
  async publicJwk(kid: string): Promise<(JWK & { alg: string }) | null> {
    let snapshot = await this.load();
    const find = () => this.publishedJwks(snapshot).find((k) => k.kid === kid) ?? null;
    if (!find() && this.now() - snapshot.at > 1_000) {
      this.snapshot = undefined;
      snapshot = await this.load();
    }
    return find();
  }

  /** The key that signs new tokens of `alg` now. */
  async signingKey(alg: SigningAlg): Promise<SigningKey> {
    const doc = signingKeyAt((await this.load()).docs, alg, new Date(this.now()));
    if (!doc) throw new Error(`no active ${alg} signing key: run the api or worker once to generate keys`);
    let key = this.signers.get(doc._id);
    if (!key) this.signers.set(doc._id, (key = { kid: doc._id, alg, sign: this.signerFor(doc) }));
    return key;
  }

  /** The key of each algorithm that signs new tokens now, from the cached documents (read for the metrics' key ages). */
  async currentSigningKeys(): Promise<Array<{ alg: SigningAlg; createdAt: Date }>> {
    const { docs } = await this.load();
    const now = new Date(this.now());
    return SIGNING_ALGS.flatMap((alg) => {
      const doc = signingKeyAt(docs, alg, now);
      return doc ? [{ alg, createdAt: doc.createdAt }] : [];
    });
  }

  /** The JWKs of the keys published now (phases change with the clock, not only with a reload). */
  private publishedJwks(snapshot: Snapshot): (JWK & { alg: string })[] {
    const now = new Date(this.now());
    return snapshot.docs.filter((d) => isPublished(keyPhase(d, snapshot.docs, now))).map((d) => snapshot.jwks.get(d._id)!);
  }

  private async infoOf(kid: string): Promise<KeyInfo> {
    return (await this.list()).find((k) => k.kid === kid)!;
  }

  private async load(): Promise<Snapshot> {
    if (this.snapshot && this.now() - this.snapshot.at < CACHE_MS) return this.snapshot;
    this.loading ??= this.read().finally(() => (this.loading = undefined));
    this.snapshot = await this.loading;
    return this.snapshot;
  }

  private async read(): Promise<Snapshot> {
    const at = this.now();
    const docs = await listSigningKeys(this.store);
    const jwks = new Map(docs.map((d) => [d._id, { ...d.publicJwk, kid: d._id, alg: d.alg, use: 'sig' }]));
    return { at, docs, jwks };
  }

  private signerFor(doc: SigningKeyDoc): SignFn {
    const secret = open(this.kek, doc.privateKey, doc._id, `signing key ${doc._id}`);
    if (doc.alg === 'ML-DSA-65') return this.mldsa.signer(secret, Buffer.from(doc.publicJwk.pub!, 'base64url'));
    const key: KeyObject = createPrivateKey({ key: secret, format: 'der', type: 'pkcs8' });
    const options = SIGNATURE_OPTIONS[doc.alg];
    // SHA-256 for all three; the callback form runs off the event loop.
    return (data) => new Promise((resolve, reject) => nodeSign('sha256', data, { key, ...options }, (err, sig) => (err ? reject(err) : resolve(sig))));
  }

  private async insertKey(alg: SigningAlg, generation: number): Promise<SigningKeyDoc | null> {
    const { publicJwk, secret } = this.generate(alg);
    const kid = await calculateJwkThumbprint(publicJwk);
    const createdAt = new Date(this.now());
    const doc: SigningKeyDoc = {
      _id: kid,
      alg,
      generation,
      status: 'active',
      publicJwk,
      privateKey: seal(this.kek, secret, kid),
      createdAt,
      signsFrom: signsFromFor(createdAt, generation === 1),
      retiredAt: null,
      publishedUntil: null,
    };
    // Null when another process created this generation first.
    return (await insertSigningKey(this.store, doc)) ? doc : null;
  }

  private generate(alg: SigningAlg): { publicJwk: Record<string, string>; secret: Buffer } {
    if (alg === 'ML-DSA-65') {
      const { seed, publicKey } = this.mldsa.generate();
      return { publicJwk: { kty: 'AKP', alg, pub: Buffer.from(publicKey).toString('base64url') }, secret: seed };
    }
    const { privateKey } = alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jwk = createPublicKey(privateKey).export({ format: 'jwk' }) as Record<string, string>;
    // The public members only, in the RFC 7638 thumbprint's members (the kid is its thumbprint).
    const publicJwk: Record<string, string> =
      alg === 'ES256' ? { kty: jwk.kty!, crv: jwk.crv!, x: jwk.x!, y: jwk.y! } : { kty: jwk.kty!, n: jwk.n!, e: jwk.e! };
    return { publicJwk, secret: privateKey.export({ format: 'der', type: 'pkcs8' }) };
  }
}

/**
 * How each non-ML-DSA algorithm signs with SHA-256 (RFC 7518 §3.3–3.5): PKCS#1
 * v1.5, PSS with a salt as long as the hash, ECDSA as the JWS's fixed-length r‖s.
 */
const SIGNATURE_OPTIONS: Record<Exclude<SigningAlg, 'ML-DSA-65'>, { padding?: number; saltLength?: number; dsaEncoding?: 'ieee-p1363' }> = {
  RS256: {},
  PS256: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 },
  ES256: { dsaEncoding: 'ieee-p1363' },
};

/** Why the signing key cannot be retired, and when it can be: once a newer key signs. */
function signingKeyRefusal(doc: SigningKeyDoc, docs: SigningKeyDoc[], now: Date): string {
  const next = docs
    .filter((d) => d.alg === doc.alg && d.generation > doc.generation && keyPhase(d, docs, now) === 'published')
    .map((d) => d.signsFrom)
    .sort((a, b) => a.getTime() - b.getTime())[0];
  return next
    ? `key ${doc._id} signs ${doc.alg} tokens until ${next.toISOString()}, when the newer key takes over: retire it after that`
    : `key ${doc._id} signs ${doc.alg} tokens now: rotate first, then retire it once the new key signs`;
}

function toInfo(d: SigningKeyDoc, phase: KeyPhase): KeyInfo {
  return {
    kid: d._id,
    alg: d.alg,
    generation: d.generation,
    status: d.status,
    phase,
    signing: phase === 'signing',
    createdAt: d.createdAt,
    signsFrom: d.signsFrom,
    retiredAt: d.retiredAt,
    publishedUntil: d.publishedUntil,
  };
}

/** A key as the operator CLI prints it (`keys list|rotate|retire`), in the API's snake_case. */
export const keyInfoJson = (k: KeyInfo) => ({
  kid: k.kid,
  alg: k.alg,
  generation: k.generation,
  status: k.status,
  phase: k.phase,
  signing: k.signing,
  created_at: k.createdAt.toISOString(),
  signs_from: k.signsFrom.toISOString(),
  retired_at: k.retiredAt?.toISOString() ?? null,
  published_until: k.publishedUntil?.toISOString() ?? null,
});
