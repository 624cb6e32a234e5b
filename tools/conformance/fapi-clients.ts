// The two clients of a FAPI 2.0 plan run, made through the CLI like the OIDC
// plans' clients: a fresh PS256 key pair each (jose, at run time: the suite
// needs the private half, Keyflow the public one), in Keyflow's FAPI 2.0 mode
// (`--fapi-profile fapi2`: private_key_jwt, PAR, PKCE, DPoP, PS256 tokens),
// and the suite's callback as redirect URI; the second client also with the query the suite adds to its redirect
// URI (`?dummy1=lorem&dummy2=ipsum`, RFC 6749 §3.1.2: kept in the response).
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { FapiClient } from './fapi-config.js';

/** A private JWK for the suite and its public JWK for Keyflow: RSA 2048, PS256 (FAPI 2.0 §5.4: PS256, ES256 or EdDSA). */
async function clientKey(): Promise<{ privateJwk: JWK; publicJwk: JWK }> {
  const { publicKey, privateKey } = await generateKeyPair('PS256', { modulusLength: 2048, extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const meta = { kid, alg: 'PS256', use: 'sig' };
  return { privateJwk: { ...(await exportJWK(privateKey)), ...meta }, publicJwk: { ...publicJwk, ...meta } };
}

export interface FapiClientsInput {
  /** The suite's callback for this alias: `https://…/test/a/<alias>/callback`. */
  callback: string;
  scope: string;
  /** Message Signing: the clients must send signed request objects (`--require-signed-request-object`, PS256). */
  signedRequests: boolean;
  /** `keyflow clients create …`: the CLI on the conformance Keyflow's database, its JSON output. */
  cli: (args: string[]) => Promise<unknown>;
}

export async function fapiClients(input: FapiClientsInput): Promise<[FapiClient, FapiClient]> {
  const make = async (n: 1 | 2): Promise<FapiClient> => {
    const { privateJwk, publicJwk } = await clientKey();
    const redirects = n === 1 ? [input.callback] : [input.callback, `${input.callback}?dummy1=lorem&dummy2=ipsum`];
    const made = (await input.cli([
      'clients',
      'create',
      '--name',
      `OIDF FAPI 2.0 client ${n}`,
      ...redirects.flatMap((uri) => ['--redirect-uri', uri]),
      '--scope',
      input.scope,
      '--auth-method',
      'private_key_jwt',
      '--jwks',
      JSON.stringify({ keys: [publicJwk] }),
      '--fapi-profile',
      'fapi2',
      ...(input.signedRequests ? ['--require-signed-request-object', '--request-object-alg', 'PS256'] : []),
    ])) as { client_id: string };
    return { client_id: made.client_id, jwks: { keys: [privateJwk] } };
  };
  return [await make(1), await make(2)];
}
