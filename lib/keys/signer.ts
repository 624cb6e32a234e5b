// Every JWT Keyflow issues goes through here: JWS compact serialization
// (RFC 7515 §7.1) with the `alg` asked for (ML-DSA-65, RS256, PS256, ES256) and the signing key's `kid`.
// The signature itself comes from the keyring (native ML-DSA, noble ML-DSA,
// RSA or ECDSA); one serializer serves all of them, because jose cannot sign with the
// noble fallback.
import { base64url } from 'jose';
import { defaultSignedResponseAlg } from '../model/fapi2.js';
import { SIGNING_ALGS, type SigningAlg } from '../model/signing-keys.js';
import type { Keyring } from './keyring.js';

export interface SignOptions {
  alg: SigningAlg;
  /** JOSE `typ` header, e.g. `at+jwt` (RFC 9068) or `logout+jwt`. */
  typ?: string;
  /** The client the JWT is for, when there is one: what a withheld `alg` falls back to is its default (algFor). */
  client?: SignedFor;
}

type SignedFor = Parameters<typeof defaultSignedResponseAlg>[0];

export class Signer {
  /**
   * `offered`: the algorithms this deployment signs with. Another asked for (a
   * client registered for ML-DSA-65 while it is withheld) gets the client's
   * default: PS256 for a FAPI 2.0 client (FAPI 2.0 §5.4.1), RS256 otherwise.
   */
  constructor(
    private readonly keyring: Keyring,
    private readonly offered: readonly SigningAlg[] = SIGNING_ALGS,
  ) {}

  /** The algorithm a token for `client` asked to be signed with `alg` is signed with. */
  algFor(alg: SigningAlg, client: SignedFor = {}): SigningAlg {
    return this.offered.includes(alg) ? alg : defaultSignedResponseAlg(client);
  }

  async sign(claims: Record<string, unknown>, options: SignOptions): Promise<string> {
    const alg = this.algFor(options.alg, options.client);
    const typ = options.typ;
    const key = await this.keyring.signingKey(alg);
    const header = typ ? { alg, kid: key.kid, typ } : { alg, kid: key.kid };
    const signingInput = `${base64url.encode(JSON.stringify(header))}.${base64url.encode(JSON.stringify(claims))}`;
    const signature = await key.sign(Buffer.from(signingInput, 'ascii'));
    return `${signingInput}.${base64url.encode(signature)}`;
  }
}
