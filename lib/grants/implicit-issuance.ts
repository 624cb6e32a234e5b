// The implicit flow's tokens (OIDC Core §3.2.2.5), issued at the authorization
// endpoint once the user is signed in and has allowed the request: an ID token,
// and for `id_token token` an RFC 9068 access token of a new grant (which
// UserInfo and revocation check, as for the code flow). Never a refresh token
// (offline_access was dropped from the request), and never DPoP-bound: there is
// no token request to carry a proof.
import { idTokenClaimNames, type AuthContext, type IdTokenClaimsPlacement } from '../model/claims.js';
import type { GrantedClaims } from '../model/claims-request.js';
import type { ClientDoc } from '../model/clients.js';
import { IMPLICIT_GRANT_TYPE, issuesAccessToken, type ResponseType } from '../model/response-type.js';
import type { UserDoc } from '../model/users.js';
import type { Store } from '../store/db.js';
import { openUserGrant } from './issuance.js';
import { relatedClaims } from './claim-sources.js';
import { issueAccessToken, signIdToken, type AccessTokenDeps } from './tokens.js';
import { noteTokenIssued } from './token-audit.js';
import type { AuditTrail } from '../audit/audit-trail.js';

/**
 * `idTokenClaims`: where the scopes' claims go when an access token comes with the ID token (ID_TOKEN_CLAIMS);
 * `audit`: the `token.issued` record.
 */
export interface ImplicitDeps extends AccessTokenDeps {
  store: Store;
  idTokenClaims: IdTokenClaimsPlacement;
  audit: Pick<AuditTrail, 'note'>;
}

/** The parameters of an implicit answer (the response function adds `state` and `iss`). */
export interface ImplicitResponse {
  id_token: string;
  access_token?: string;
  token_type?: 'Bearer';
  expires_in?: string;
  scope?: string;
}

export async function issueImplicitResponse(
  deps: ImplicitDeps,
  input: {
    responseType: ResponseType;
    client: ClientDoc;
    user: UserDoc;
    scope: string[];
    grantId: string;
    nonce: string | null;
    auth: AuthContext;
    claims: GrantedClaims;
    resources: string[];
  },
): Promise<ImplicitResponse> {
  const { responseType, client, user, scope, grantId, nonce, auth, claims } = input;
  const [, extra] = await Promise.all([
    // The record of what this authorization gave the client (its audit names it), and what its access token is checked against.
    openUserGrant(deps.store, {
      grantId,
      clientId: client._id,
      userId: user._id,
      scope,
      auth,
      userinfoClaims: issuesAccessToken(responseType) ? claims.userinfo : [],
    }),
    relatedClaims(deps.store, client, user._id, scope),
  ]);
  const idToken = { client, user, scope, nonce, auth, extra };
  // The user's browser asked (there is no token request): the user is the actor.
  const issued = { clientId: client._id, userId: user._id, grantId, grantType: IMPLICIT_GRANT_TYPE, scope, refreshToken: false };

  if (!issuesAccessToken(responseType)) {
    // No access token, so no UserInfo: the scopes' claims, and those asked for at UserInfo, go in the ID token (OIDC Core §5.4).
    const claimNames = idTokenClaimNames(scope, [...claims.idToken, ...claims.userinfo], 'scopes');
    const signed = await signIdToken(deps, { ...idToken, claimNames });
    noteTokenIssued(deps.audit, issued, { type: 'user', userId: user._id });
    return { id_token: signed };
  }
  const access = await issueAccessToken(deps, { client, userId: user._id, scope, grantId, auth, resources: input.resources });
  // With an access token, the claims go where ID_TOKEN_CLAIMS puts them, as for the code flow.
  const claimNames = idTokenClaimNames(scope, claims.idToken, deps.idTokenClaims);
  const signed = await signIdToken(deps, { ...idToken, claimNames, accessToken: access.access_token });
  noteTokenIssued(deps.audit, { ...issued, resources: input.resources }, { type: 'user', userId: user._id });
  return {
    access_token: access.access_token,
    token_type: 'Bearer',
    expires_in: String(access.expires_in),
    scope: access.scope,
    id_token: signed,
  };
}
