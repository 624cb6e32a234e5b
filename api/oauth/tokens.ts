// Building and signing the tokens of a token response. Access tokens are
// RFC 9068 JWTs; both they and ID tokens use the client's algorithm
// (ML-DSA-65 by default, RS256 on request).
import { accessTokenClaims, idTokenClaims, TOKEN_TTL_SECONDS, type AuthContext, type ClaimsUser } from '../../domain/claims.js';
import type { Signer } from '../../keys/signer.js';
import { newId } from '../../security/secrets.js';
import type { ClientDoc } from '../../store/clients.js';
import type { UserDoc } from '../../store/users.js';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  id_token?: string;
  scope: string;
}

export function claimsUser(user: UserDoc): ClaimsUser {
  return { id: user._id, email: user.email, emailVerified: user.emailVerified, username: user.username, name: user.name, picture: user.picture, role: user.role };
}

/** An access token alone (refresh), without ID token. */
export async function issueAccessToken(
  deps: { issuer: string; signer: Signer },
  input: { client: ClientDoc; userId: string; scope: string[]; grantId: string; auth: AuthContext },
): Promise<TokenResponse> {
  const { client, userId, scope, grantId, auth } = input;
  const claims = accessTokenClaims({ issuer: deps.issuer, audience: deps.issuer, clientId: client._id, userId, scope, grantId, jti: newId(), auth, now: Date.now() });
  const accessToken = await deps.signer.sign(claims, { alg: client.idTokenSignedResponseAlg, typ: 'at+jwt' });
  return { access_token: accessToken, token_type: 'Bearer', expires_in: TOKEN_TTL_SECONDS, scope: scope.join(' ') };
}

export async function issueTokens(
  deps: { issuer: string; signer: Signer },
  input: { client: ClientDoc; user: UserDoc; scope: string[]; grantId: string; auth: AuthContext; nonce: string | null },
): Promise<TokenResponse> {
  const { client, user, scope, grantId, auth, nonce } = input;
  const [access, idToken] = await Promise.all([
    issueAccessToken(deps, { client, userId: user._id, scope, grantId, auth }),
    scope.includes('openid')
      ? deps.signer.sign(idTokenClaims({ issuer: deps.issuer, clientId: client._id, user: claimsUser(user), scope, nonce, auth, now: Date.now() }), {
          alg: client.idTokenSignedResponseAlg,
        })
      : undefined,
  ]);
  return idToken ? { ...access, id_token: idToken } : access;
}
