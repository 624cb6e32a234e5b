// The UserInfo answer (OIDC Core §5.3.2): the claims as JSON, or, for a client
// registered with userinfo_signed_response_alg, a JWT Keyflow signs with that
// algorithm (the keys of its JWKS), carrying `iss` and `aud` (the client)
// beside the claims, as application/jwt. Never cached either way.
import type { Response } from 'express';
import type { ClientDoc } from '../../../lib/model/clients.js';
import type { ApiContext } from '../../context.js';

export type UserinfoResponseDeps = Pick<ApiContext, 'issuer' | 'signer'>;

/** `client`: the access token's client, null when it has none (a personal access token): JSON. */
export async function sendUserinfo(res: Response, deps: UserinfoResponseDeps, client: ClientDoc | null, claims: Record<string, unknown>): Promise<void> {
  res.set('Cache-Control', 'no-store');
  const alg = client?.userinfoSignedResponseAlg;
  if (!client || !alg) {
    res.json(claims);
    return;
  }
  // iss and aud last: no claim can stand in for them. A withheld ML-DSA-65 falls back to the client's default (signer.algFor).
  const jwt = await deps.signer.sign({ ...claims, iss: deps.issuer, aud: client._id }, { alg, client });
  // A Buffer, so that Express adds no charset to the media type.
  res.type('application/jwt').send(Buffer.from(jwt, 'ascii'));
}
