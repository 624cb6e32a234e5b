// Building and signing the tokens of a token response. Access tokens are
// RFC 9068 JWTs, signed for the resource servers that verify them
// (access-token-alg.ts: RS256 unless the client or its resources opt into
// ML-DSA-65); ID tokens use the client's ID token algorithm (ML-DSA-65 by
// default for apps made in Keyflow).
import { accessTokenClaims, idTokenClaimNames, idTokenClaims, TOKEN_TTL_SECONDS, type AuthContext, type IdTokenClaimsPlacement } from '../model/claims.js';
import type { GrantedClaims } from '../model/claims-request.js';
import { relatedClaims } from './claim-sources.js';
import type { ClientDoc } from '../model/clients.js';
import type { Signer } from '../keys/signer.js';
import { leftHalfHash } from '../keys/token-hash.js';
import { accessTokenAudience } from '../model/resources.js';
import { accessTokenAlg } from '../model/access-token-alg.js';
import { newId } from '../security/secrets.js';
import type { UserDoc } from '../model/users.js';
import type { Store } from '../store/db.js';
import { currentTimeMs } from '../runtime/clock.js';

export interface TokenResponse {
  access_token: string;
  /** `DPoP` when the access token is bound to a DPoP key (RFC 9449 §5). */
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  refresh_token?: string;
  id_token?: string;
  scope: string;
}

/** What signing an access token needs: the issuer, the signer, and the resources that verify ML-DSA-65 (access-token-alg.ts). */
export interface AccessTokenDeps {
  issuer: string;
  signer: Signer;
  /** ACCESS_TOKEN_ML_DSA_RESOURCES. */
  mlDsaResources: readonly string[];
}

/**
 * An access token alone (refresh, token exchange, client credentials), without
 * ID token. With `jkt` it is DPoP-bound (`cnf.jkt`, RFC 9449 §6.1). Without
 * `auth` it is a machine token: `sub` is the client, no authentication claims.
 */
export async function issueAccessToken(
  deps: AccessTokenDeps,
  input: {
    client: ClientDoc;
    userId: string;
    scope: string[];
    grantId: string;
    auth?: AuthContext;
    jkt?: string;
    /** RFC 8707: added to `aud` (after the issuer, when a Keyflow API scope is granted). */ resources?: readonly string[];
  },
): Promise<TokenResponse> {
  const { client, userId, scope, grantId, auth, jkt } = input;
  const alg = accessTokenAlg(client, input.resources ?? [], deps.mlDsaResources);
  const claims = accessTokenClaims({
    issuer: deps.issuer,
    audience: accessTokenAudience(deps.issuer, input.resources, { scope, clientId: client._id }),
    clientId: client._id,
    userId,
    scope,
    grantId,
    jti: newId(),
    auth,
    now: currentTimeMs(),
  });
  const accessToken = await deps.signer.sign(jkt ? { ...claims, cnf: { jkt } } : claims, { alg, typ: 'at+jwt', client });
  return { access_token: accessToken, token_type: jkt ? 'DPoP' : 'Bearer', expires_in: TOKEN_TTL_SECONDS, scope: scope.join(' ') };
}

/** What an access token and ID token are issued for: a grant's client, user, scope and authentication. */
export interface TokenIssue {
  client: ClientDoc;
  user: UserDoc;
  scope: string[];
  grantId: string;
  auth: AuthContext;
  nonce: string | null;
  jkt?: string;
  /** Individual claims the `claims` parameter asked for and the user allowed. */
  claims?: GrantedClaims;
}

export async function issueTokens(
  deps: AccessTokenDeps & { store: Store; idTokenClaims: IdTokenClaimsPlacement },
  input: TokenIssue & { resources?: readonly string[] },
): Promise<TokenResponse> {
  const { client, user, scope, grantId, auth, nonce, jkt } = input;
  const [access, extra] = await Promise.all([
    issueAccessToken(deps, { client, userId: user._id, scope, grantId, auth, jkt, resources: input.resources }),
    scope.includes('openid') ? relatedClaims(deps.store, client, user._id, scope) : undefined,
  ]);
  if (!extra) return access;
  const claimNames = idTokenClaimNames(scope, input.claims?.idToken ?? [], deps.idTokenClaims);
  const idToken = await signIdToken(deps, { client, user, scope, claimNames, nonce, auth, extra, accessToken: access.access_token });
  return { ...access, id_token: idToken };
}

/**
 * An ID token, in the client's algorithm: `claimNames` its standard claims,
 * `extra` the opt-in and team claims (relatedClaims). With `accessToken` it
 * names the access token issued with it (`at_hash`, OIDC Core §3.1.3.6 and
 * §3.2.2.9), hashed with the ID token's own algorithm.
 */
export async function signIdToken(
  deps: { issuer: string; signer: Signer },
  input: Pick<TokenIssue, 'client' | 'user' | 'scope' | 'nonce' | 'auth'> & {
    claimNames: readonly string[];
    extra: Record<string, unknown>;
    accessToken?: string;
  },
): Promise<string> {
  const { client, user, scope, claimNames, nonce, auth, extra, accessToken } = input;
  const alg = deps.signer.algFor(client.idTokenSignedResponseAlg, client);
  const claims = idTokenClaims({ issuer: deps.issuer, clientId: client._id, user, scope, claimNames, nonce, auth, now: currentTimeMs(), extra });
  return deps.signer.sign(accessToken ? { ...claims, at_hash: leftHalfHash(accessToken, alg) } : claims, { alg });
}
