// ML-DSA-65 (FIPS 204) signing with Node's native implementation (OpenSSL 3.5,
// Node 24) when the runtime has it, and @noble/post-quantum otherwise. Both are
// driven from the same 32-byte seed, so a key works with either implementation.
import { createPrivateKey, generateKeyPairSync, randomBytes, sign as nodeSign, type KeyObject } from 'node:crypto';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import type { MlDsaMode } from '../config/env.js';
import { MlDsaWorkerPool } from './mldsa-pool.js';

export type SignFn = (data: Uint8Array) => Promise<Uint8Array>;

export interface MlDsa65 {
  readonly implementation: 'native' | 'noble';
  /** A new key: the seed (private) and the encoded public key. */
  generate(): { seed: Buffer; publicKey: Uint8Array };
  signer(seed: Buffer, publicKey: Uint8Array): SignFn;
}

let nativeAvailable: boolean | undefined;
export function nativeMlDsaAvailable(): boolean {
  if (nativeAvailable === undefined) {
    try {
      generateKeyPairSync('ml-dsa-65' as never);
      nativeAvailable = true;
    } catch {
      nativeAvailable = false;
    }
  }
  return nativeAvailable;
}

const native: MlDsa65 = {
  implementation: 'native',
  generate() {
    const { privateKey } = generateKeyPairSync('ml-dsa-65' as never) as unknown as { privateKey: KeyObject };
    const jwk = privateKey.export({ format: 'jwk' }) as { priv: string; pub: string };
    return { seed: Buffer.from(jwk.priv, 'base64url'), publicKey: Buffer.from(jwk.pub, 'base64url') };
  },
  signer(seed, publicKey) {
    const key = createPrivateKey({
      key: { kty: 'AKP', alg: 'ML-DSA-65', priv: seed.toString('base64url'), pub: Buffer.from(publicKey).toString('base64url') },
      format: 'jwk',
    });
    // The callback form runs on libuv's thread pool, off the event loop.
    return (data) => new Promise((resolve, reject) => nodeSign(null, data, key, (err, sig) => (err ? reject(err) : resolve(sig))));
  },
};

let pool: MlDsaWorkerPool | undefined;

const noble: MlDsa65 = {
  implementation: 'noble',
  generate() {
    const seed = randomBytes(32);
    return { seed, publicKey: ml_dsa65.keygen(seed).publicKey };
  },
  signer(seed, publicKey) {
    // Signing happens in worker threads, keyed by the public key (one secret key per worker and key).
    pool ??= new MlDsaWorkerPool();
    const keyId = Buffer.from(publicKey.subarray(0, 32)).toString('hex');
    return (data) => pool!.sign(keyId, seed, data);
  },
};

/** Ends the noble fallback's worker threads, if any were started (tests; a process exits without it). */
export async function closeMlDsaWorkers(): Promise<void> {
  const running = pool;
  pool = undefined;
  await running?.close();
}

export function createMlDsa65(mode: MlDsaMode): MlDsa65 {
  if (mode === 'noble') return noble;
  if (mode === 'native' && !nativeMlDsaAvailable()) {
    throw new Error('KEYFLOW_MLDSA=native, but this runtime has no native ML-DSA (needs Node 24 with OpenSSL 3.5)');
  }
  return nativeMlDsaAvailable() ? native : noble;
}
