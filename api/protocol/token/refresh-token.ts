// grant_type=refresh_token (RFC 6749 §6). Rotation is decided in MongoDB
// (lib/store/refresh-rotations.ts): the presented token's rotation claim, a
// unique insert, makes it single use with no Temporal call on the request
// path. A second presentation is a retry within the retry window
// (REFRESH_RETRY_WINDOW_SECONDS; a public client's unbound token
// …_PUBLIC_SECONDS, 0 by default), by the same client and DPoP key (both
// checked below, before any rotation), or
// reuse, which revokes the grant in MongoDB first, then tells its
// RefreshFamily workflow (the family's timer, revocation cascade and what an
// SRE reads). A FAPI 2.0 client's refresh token is not rotated (FAPI 2.0
// §5.3.2.1: no rotation but in extraordinary circumstances): the same token
// serves until its family ends, as the client authenticates with its key and
// each access token is bound to a DPoP key.
import type { Request, Response } from 'express';
import { parseScopeParam } from '../../../lib/model/scopes.js';
import { narrowResources } from '../../../lib/model/resources.js';
import { hashSecret, newSecret } from '../../../lib/security/secrets.js';
import { isGrantLive } from '../../../lib/store/grants.js';
import { findRefreshToken } from '../../../lib/store/refresh-tokens.js';
import { claimRotation, isUnrotated } from '../../../lib/store/refresh-rotations.js';
import { isFapi2 } from '../../../lib/model/fapi2.js';
import { refreshRetryWindowMs, refreshTokenJkt } from '../../../lib/model/refresh-binding.js';
import { endRefreshFamily } from '../../../lib/flows/refresh-family.js';
import { sendOAuthError, sendOAuthJson } from '../shared/errors.js';
import { revokeReusedGrant } from '../../../lib/grants/revocation.js';
import { issueAccessToken } from '../../../lib/grants/tokens.js';
import { clientActor, grantSubject, noteTokenIssued } from '../../../lib/grants/token-audit.js';
import type { GrantContext } from './context.js';
import { currentDate } from '../../../lib/runtime/clock.js';

const INVALID = 'refresh token expired, revoked or invalid';

export async function refreshTokenGrant(req: Request, res: Response, { client, deps, dpopJkt, params }: GrantContext): Promise<void> {
  const body = params.fields;
  const presented = body.refresh_token;
  if (!presented) return sendOAuthError(res, 400, 'invalid_request', 'refresh_token is required');
  // Longer than any refresh token Keyflow issues (e.g. an access token): unknown, like any other wrong value.
  if (presented.length > 200) return sendOAuthError(res, 400, 'invalid_grant', INVALID);
  const presentedHash = hashSecret(presented);
  const doc = await findRefreshToken(deps.store, presentedHash);
  // Another client's token is as good as unknown: nothing is revealed about it.
  if (!doc || doc.clientId !== client._id) return sendOAuthError(res, 400, 'invalid_grant', INVALID);
  if (doc.expiresAt <= currentDate()) return sendOAuthError(res, 400, 'invalid_grant', INVALID);
  // A DPoP-bound family (RFC 9449 §5): the refresh proves the same key, before the token is rotated.
  if (doc.jkt !== undefined) {
    if (!dpopJkt) return sendOAuthError(res, 400, 'invalid_dpop_proof', 'this refresh token is DPoP-bound: a DPoP proof of its key is required');
    if (dpopJkt !== doc.jkt) return sendOAuthError(res, 400, 'invalid_grant', 'the DPoP proof is not signed by the key the refresh token is bound to');
  }

  // The grant decides too: one revoked in MongoDB (a replayed code, a deleted client or
  // user), or whose client or user is gone, refuses its refresh tokens even if its
  // family missed the revocation, which is then told again.
  // The token's client is the one that just authenticated (an active one): not read again.
  if (!(await isGrantLive(deps.store, { grantId: doc.grantId, clientId: doc.clientId, userId: doc.userId }, deps.userActive))) {
    await endRefreshFamily(deps.flows, doc.grantId, 'grant revoked');
    return sendOAuthError(res, 400, 'invalid_grant', INVALID);
  }

  // The requested scope may narrow the access token, never widen it (RFC 6749 §6).
  let scope = doc.scope;
  if (body.scope !== undefined) {
    const requested = parseScopeParam(body.scope);
    const extra = requested.find((s) => !doc.scope.includes(s));
    if (requested.length === 0 || extra)
      return sendOAuthError(res, 400, 'invalid_scope', extra ? `the scope ${extra} was not granted` : 'scope must not be empty');
    scope = requested;
  }

  // RFC 8707: `resource` may narrow the access token's audience to granted resources (that the client still lists).
  const target = narrowResources(doc.resources ?? [], params.resource, client.allowedResources ?? []);
  if (!target.ok) return sendOAuthError(res, 400, target.error, target.description);

  const now = currentDate();
  // No ID token on refresh (OIDC Core §12.2 makes it optional): the access token
  // needs only what the projection carries.
  const issue = async (rotated: boolean) => {
    const token = await issueAccessToken(deps, {
      client,
      userId: doc.userId,
      scope,
      grantId: doc.grantId,
      auth: doc.auth,
      jkt: dpopJkt,
      resources: target.resources,
    });
    const grant = { clientId: client._id, userId: doc.userId, grantId: doc.grantId };
    // A rotation is counted, and recorded once per grant and minute (refresh.rotated) instead of a
    // token.issued each: the busiest path writes nothing. A replay answered in the retry window is recorded.
    if (rotated) deps.refreshRotations.rotated(grant);
    else noteTokenIssued(deps.audit, { ...grant, grantType: 'refresh_token', scope, resources: target.resources, jkt: dpopJkt, refreshToken: false });
    return token;
  };
  const refuseReuse = async () => {
    await revokeReusedGrant(deps, doc.grantId);
    deps.log.warn('refresh token reused; grant revoked', { client: client._id, grant: doc.grantId });
    await deps.audit.record('refresh.reuse_detected', {
      outcome: 'failure',
      actor: clientActor(client._id),
      subject: grantSubject(client._id, doc.userId),
      data: { client_id: client._id, grant_id: doc.grantId },
    });
    sendOAuthError(res, 400, 'invalid_grant', 'refresh token was already used; the grant is revoked');
  };
  if (isFapi2(client)) {
    // Not rotated; a token rotated before the client was in the mode is still a superseded one: reuse.
    return (await isUnrotated(deps.store, doc, now)) ? sendOAuthJson(res, 200, await issue(false)) : refuseReuse();
  }

  const next = newSecret();
  const nextHash = hashSecret(next);
  const rotation = await claimRotation(deps.store, doc, {
    newHash: nextHash,
    retryWindowMs: refreshRetryWindowMs(client, doc.jkt, deps.refreshRetryWindows),
    now,
    // A family begun without DPoP is bound from the first refresh with a proof on (refresh-binding.ts).
    jkt: refreshTokenJkt(client, dpopJkt, doc.jkt),
  });
  if (rotation.status === 'reused') return refuseReuse();
  if (rotation.replacedHash)
    deps.log.info('refresh token retried within the window; the answer it replaces is superseded', { client: client._id, grant: doc.grantId });

  sendOAuthJson(res, 200, { ...(await issue(true)), refresh_token: next });
}
