// grant_type=urn:ietf:params:oauth:grant-type:device_code (RFC 8628 §3.4-3.5).
// A pending poll is one MongoDB command (the pacing document, which exists
// only while the code is pending); any other answer comes from the MongoDB
// projection of the flow. No Temporal call until an approved code is redeemed
// through the workflow's `redeem` update, which succeeds once: that is the
// single-use guarantee.
import type { Request, Response } from 'express';
import { verifierFormatProblem, verifierMismatch } from '../../../lib/model/pkce.js';
import { narrowResources } from '../../../lib/model/resources.js';
import { redeemDeviceFlow } from '../../../lib/flows/device-authorization.js';
import { hashSecret, newId } from '../../../lib/security/secrets.js';
import { findDeviceCode, recordPendingPoll, recordPoll } from '../../../lib/store/device-codes.js';
import { findUserById } from '../../../lib/store/users.js';
import { isDisabled } from '../../../lib/model/users.js';
import { isEarlyPoll } from '../../../lib/model/device-authorization.js';
import { sendOAuthError, sendOAuthJson } from '../shared/errors.js';
import { issueGrantTokens, prepareRefreshFamily } from '../../../lib/grants/issuance.js';
import { noteTokenIssued } from '../../../lib/grants/token-audit.js';
import type { GrantContext } from './context.js';
import { currentDate } from '../../../lib/runtime/clock.js';

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

const INVALID = 'device_code expired, used or invalid';
const SLOW_DOWN = 'polling too often: wait 5 seconds longer between requests';
const PENDING = 'the user has not answered yet';

export async function deviceCodeGrant(req: Request, res: Response, { client, deps, dpopJkt, params }: GrantContext): Promise<void> {
  const body = params.fields;
  const deviceCode = body.device_code;
  const verifier = body.code_verifier;
  if (typeof deviceCode !== 'string' || deviceCode.length === 0 || deviceCode.length > 100)
    return sendOAuthError(res, 400, 'invalid_request', 'device_code is required');
  const malformed = verifierFormatProblem(verifier);
  if (malformed) return sendOAuthError(res, 400, 'invalid_request', malformed);

  const hash = hashSecret(deviceCode);
  const now = currentDate();
  const pending = await recordPendingPoll(deps.store, hash, client._id, now);
  if (pending) {
    if (pending.expiresAt <= now) return sendOAuthError(res, 400, 'expired_token', 'the device_code has expired');
    if (isEarlyPoll(pending, now)) return sendOAuthError(res, 400, 'slow_down', SLOW_DOWN);
    return sendOAuthError(res, 400, 'authorization_pending', PENDING);
  }

  // Answered, expired, another client's, unknown, or issued before pacing by budget: the flow's projection says which.
  const doc = await findDeviceCode(deps.store, hash);
  // Another client's code is as good as unknown: nothing is revealed about it.
  if (!doc || doc.clientId !== client._id) return sendOAuthError(res, 400, 'invalid_grant', INVALID);
  if (doc.status === 'denied') return sendOAuthError(res, 400, 'access_denied', 'the user denied the request');
  if (doc.status === 'redeemed') return sendOAuthError(res, 400, 'invalid_grant', INVALID);
  // expiresAt decides, not only the projection: the workflow's timer may lag a little.
  if (doc.status === 'expired' || doc.expiresAt <= currentDate()) return sendOAuthError(res, 400, 'expired_token', 'the device_code has expired');
  if (doc.status === 'pending') {
    if (await recordPoll(deps.store, hash)) return sendOAuthError(res, 400, 'slow_down', SLOW_DOWN);
    return sendOAuthError(res, 400, 'authorization_pending', PENDING);
  }

  // Approved. PKCE before redeeming, so a wrong verifier does not use the approval up.
  const mismatch = verifierMismatch(doc.codeChallenge, verifier, 'the device authorization request');
  if (mismatch) return sendOAuthError(res, 400, 'invalid_grant', mismatch);

  // RFC 8707 §2.2: the token request may narrow the resources, never add one (checked before redeeming).
  const target = narrowResources(doc.resources ?? [], params.resource, client.allowedResources ?? []);
  if (!target.ok) return sendOAuthError(res, 400, target.error, target.description);

  // With offline_access the redeem update also starts the refresh family: one Temporal call.
  const grantId = newId();
  const prepared =
    doc.scope.includes('offline_access') && doc.userId
      ? prepareRefreshFamily(deps, { grantId, clientId: client._id, userId: doc.userId, scope: doc.scope, resources: doc.resources ?? [] })
      : null;
  const redeemed = await redeemDeviceFlow(deps.flows, hash, { family: prepared?.family ?? null });
  // The workflow has ended: redeemed, denied or expired meanwhile.
  if (redeemed.ended) return sendOAuthError(res, 400, 'invalid_grant', INVALID);
  const result = redeemed.value;
  if (result.status !== 'redeemed') {
    if (result.state === 'expired') return sendOAuthError(res, 400, 'expired_token', 'the device_code has expired');
    return sendOAuthError(res, 400, 'invalid_grant', INVALID);
  }

  const { approval } = result;
  const user = await findUserById(deps.store, approval.userId);
  // A user disabled after the approval gets nothing (their grants were revoked; this one is not opened).
  if (!user || isDisabled(user)) return sendOAuthError(res, 400, 'invalid_grant', INVALID);
  // A family the workflow did not start is started by issueGrantTokens (a fresh one if it was for another user).
  const family = prepared && prepared.family.userId === user._id ? { ...prepared, started: result.familyStarted === true } : undefined;
  const auth = { authTime: new Date(approval.authTime), amr: approval.amr, acr: approval.acr, sid: approval.sid };
  const tokens = await issueGrantTokens(
    deps,
    {
      client,
      user,
      scope: doc.scope,
      grantId,
      nonce: null,
      jkt: dpopJkt, // DPoP (RFC 9449): bound when the poll carried a valid proof
      resources: doc.resources ?? [],
      tokenResources: target.resources,
      auth,
    },
    family,
  );
  noteTokenIssued(deps.audit, {
    clientId: client._id,
    userId: user._id,
    grantId,
    grantType: DEVICE_CODE_GRANT,
    scope: doc.scope,
    resources: target.resources,
    jkt: dpopJkt,
    refreshToken: tokens.refresh_token !== undefined,
  });
  sendOAuthJson(res, 200, tokens);
}
