// Issuing the tokens of a new grant (code exchange, device approval, …): the
// grant document, the access and ID tokens, and — when offline_access was
// granted — the refresh token with its RefreshFamily workflow (one Temporal
// call; none when the caller's own Temporal call already started the family,
// as the device flow's redeem update does). Only the refresh token's hash
// leaves this module.
import type { RefreshFamilyInput } from '../model/refresh-family.js';
import { refreshTokenJkt } from '../model/refresh-binding.js';
import { endRefreshFamily, startRefreshFamily } from '../flows/refresh-family.js';
import { hashSecret, newSecret } from '../security/secrets.js';
import { isGrantUsable, openGrant } from '../store/grants.js';
import { recordFirstRefreshToken } from '../store/refresh-tokens.js';
import type { FlowClient } from '../flows/flow-client.js';
import type { Signer } from '../keys/signer.js';
import type { AuthContext, IdTokenClaimsPlacement } from '../model/claims.js';
import type { GrantDoc } from '../model/grants.js';
import type { Store } from '../store/db.js';
import { issueTokens, type TokenIssue, type TokenResponse } from './tokens.js';
import { currentDate, currentTimeMs } from '../runtime/clock.js';

export interface GrantIssuanceDeps {
  issuer: string;
  signer: Signer;
  /** Resources that verify ML-DSA-65 access tokens (ACCESS_TOKEN_ML_DSA_RESOURCES). */
  mlDsaResources: readonly string[];
  store: Store;
  flows: FlowClient;
  /** Where the scopes' standard claims go (ID_TOKEN_CLAIMS). */
  idTokenClaims: IdTokenClaimsPlacement;
  refreshTokenTtlMs: number;
}

/** A refresh token and the input of its family, made before the family is started. */
export interface PreparedFamily {
  refreshToken: string;
  family: RefreshFamilyInput;
}

export function prepareRefreshFamily(
  deps: Pick<GrantIssuanceDeps, 'refreshTokenTtlMs'>,
  f: { grantId: string; clientId: string; userId: string; scope: string[]; resources: string[] },
): PreparedFamily {
  const refreshToken = newSecret();
  const family: RefreshFamilyInput = {
    ...f,
    currentHash: hashSecret(refreshToken),
    expiresAt: currentTimeMs() + deps.refreshTokenTtlMs,
  };
  return { refreshToken, family };
}

export class GrantRevokedError extends Error {}

/**
 * Records the grant of a user's authorization (code, device approval or
 * implicit): what it gave the client (its audit names it), and what its
 * access tokens are checked against.
 */
export function openUserGrant(
  store: Store,
  g: { grantId: string; clientId: string; userId: string; scope: string[]; auth: AuthContext; userinfoClaims: string[] },
): Promise<GrantDoc> {
  const { sid, authTime, amr, acr } = g.auth;
  return openGrant(store, {
    _id: g.grantId,
    clientId: g.clientId,
    userId: g.userId,
    scope: g.scope,
    sid,
    authTime,
    amr,
    acr,
    ...(g.userinfoClaims.length ? { userinfoClaims: g.userinfoClaims } : {}),
  });
}

export async function issueGrantTokens(
  deps: GrantIssuanceDeps,
  input: TokenIssue & {
    /** RFC 8707: the resources granted (kept by the refresh family) and those of this access token (a subset; default all). */
    resources?: string[];
    tokenResources?: string[];
  },
  /** A family prepared (and maybe started) by the caller; it must be this grant's. */
  prepared?: PreparedFamily & { started: boolean },
): Promise<TokenResponse> {
  const { client, user, scope, grantId, auth, jkt } = input;
  const grant = await openUserGrant(deps.store, { grantId, clientId: client._id, userId: user._id, scope, auth, userinfoClaims: input.claims?.userinfo ?? [] });
  if (grant.revokedAt) throw new GrantRevokedError('the grant was revoked');
  const resources = input.resources ?? [];
  const tokens = await issueTokens(
    { issuer: deps.issuer, signer: deps.signer, mlDsaResources: deps.mlDsaResources, store: deps.store, idTokenClaims: deps.idTokenClaims },
    { ...input, resources: input.tokenResources ?? resources },
  );
  if (!scope.includes('offline_access')) return tokens;

  const boundTo = refreshTokenJkt(client, jkt);
  const { refreshToken, family } = prepared ?? prepareRefreshFamily(deps, { grantId, clientId: client._id, userId: user._id, scope, resources });
  await recordFirstRefreshToken(deps.store, {
    _id: family.currentHash,
    grantId,
    clientId: client._id,
    userId: user._id,
    scope,
    resources,
    auth: { authTime: auth.authTime, amr: auth.amr, acr: auth.acr, sid: auth.sid },
    // Bound to the key of the request's DPoP proof, outside FAPI 2.0: each refresh proves it (refresh-binding.ts).
    ...(boundTo !== undefined ? { jkt: boundTo } : {}),
    issuedAt: currentDate(),
    expiresAt: new Date(family.expiresAt),
  });
  if (!prepared?.started) await startRefreshFamily(deps.flows, family);
  // A replayed code (or the deletion of the client or user) may have revoked the grant
  // while its family was being started, when there was no family yet to end: end it now.
  if (!(await isGrantUsable(deps.store, { grantId, clientId: client._id, userId: user._id })))
    await endRefreshFamily(deps.flows, grantId, 'grant revoked while issued');
  return { ...tokens, refresh_token: refreshToken };
}
