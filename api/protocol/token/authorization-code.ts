// grant_type=authorization_code (RFC 6749 §4.1.3, RFC 7636 §4.5).
import type { Request, Response } from 'express';
import { verifierFormatProblem, verifierMismatch } from '../../../lib/model/pkce.js';
import { narrowResources, parseResources } from '../../../lib/model/resources.js';
import { readAuthorizationCode, useAuthorizationCode } from '../../../lib/grants/authorization-codes.js';
import { findUserById } from '../../../lib/store/users.js';
import { isDisabled } from '../../../lib/model/users.js';
import { sendOAuthError, sendOAuthJson } from '../shared/errors.js';
import { GrantRevokedError, issueGrantTokens } from '../../../lib/grants/issuance.js';
import { revokeGrantAndFamily } from '../../../lib/grants/revocation.js';
import { clientActor, grantSubject, noteTokenIssued } from '../../../lib/grants/token-audit.js';
import type { GrantContext } from './context.js';

const INVALID_CODE = 'code expired or invalid';
/**
 * Longer than any code Keyflow issues: a sealed record, largest with ten
 * resource indicators of 2,048 characters each (about 30,000 characters), its
 * nonce and claims bounded at the authorization endpoint; within the token
 * endpoint's 64 kB body.
 */
const MAX_CODE_LENGTH = 48_000;

export async function authorizationCodeGrant(req: Request, res: Response, ctx: GrantContext): Promise<void> {
  const { client, deps } = ctx;
  const { params } = ctx;
  const body = params.fields;
  const code = body.code;
  const redirectUri = body.redirect_uri;
  const verifier = body.code_verifier;
  if (typeof code !== 'string' || code.length === 0 || code.length > MAX_CODE_LENGTH) return sendOAuthError(res, 400, 'invalid_request', 'code is required');
  if (typeof redirectUri !== 'string') return sendOAuthError(res, 400, 'invalid_request', 'redirect_uri is required');
  const malformed = verifierFormatProblem(verifier);
  if (malformed) return sendOAuthError(res, 400, 'invalid_request', malformed);

  // A malformed resource is refused before the code is read.
  const requested = parseResources(params.resource);
  if (!requested.ok) return sendOAuthError(res, 400, requested.error, requested.description);

  const c = readAuthorizationCode(deps, code);
  if (!c) return sendOAuthError(res, 400, 'invalid_grant', INVALID_CODE);
  // Only a request that would succeed uses the code up (and a second such request is reuse):
  // another client, a wrong redirect URI, verifier or DPoP key leaves it to its rightful client.
  if (c.clientId !== client._id) return sendOAuthError(res, 400, 'invalid_grant', INVALID_CODE);
  if (c.redirectUri !== redirectUri) return sendOAuthError(res, 400, 'invalid_grant', 'redirect_uri does not match the authorization request');
  const mismatch = verifierMismatch(c.codeChallenge, verifier, 'the authorization request');
  if (mismatch) return sendOAuthError(res, 400, 'invalid_grant', mismatch);
  // RFC 9449 §10: a code bound to a DPoP key is redeemed only with a proof of that key.
  if (c.dpopJkt && ctx.dpopJkt !== c.dpopJkt)
    return sendOAuthError(res, 400, 'invalid_grant', 'the DPoP proof is not of the key the authorization request named (dpop_jkt)');
  // RFC 8707 §2.2: the token request may narrow the granted resources, never add one.
  const target = narrowResources(c.resources ?? [], params.resource, client.allowedResources ?? []);
  if (!target.ok) return sendOAuthError(res, 400, target.error, target.description);

  const use = await useAuthorizationCode(deps, c);
  if (use === 'reused') {
    // A code used twice may have been stolen: what the first use issued is revoked (RFC 6749 §4.1.2),
    // its refresh family included.
    const revoked = await revokeGrantAndFamily(deps, c.grantId, 'authorization code reused');
    deps.log.warn('authorization code reused; grant revoked', { client: c.clientId, grant: c.grantId });
    await deps.audit.record('code.replayed', {
      outcome: 'failure',
      actor: clientActor(client._id),
      subject: grantSubject(client._id, c.userId),
      data: { client_id: client._id, grant_id: c.grantId, revoked },
    });
    return sendOAuthError(res, 400, 'invalid_grant', INVALID_CODE);
  }
  if (use === 'expired') return sendOAuthError(res, 400, 'invalid_grant', INVALID_CODE);

  const user = await findUserById(deps.store, c.userId);
  // A user disabled after the approval gets nothing (their grants were revoked; this one is not opened).
  if (!user || isDisabled(user)) return sendOAuthError(res, 400, 'invalid_grant', INVALID_CODE);
  try {
    const tokens = await issueGrantTokens(deps, {
      client,
      user,
      scope: c.scope,
      grantId: c.grantId,
      nonce: c.nonce,
      ...(c.claims ? { claims: c.claims } : {}),
      auth: { authTime: c.authTime, amr: c.amr, acr: c.acr, sid: c.sid },
      jkt: ctx.dpopJkt,
      resources: c.resources ?? [],
      tokenResources: target.resources,
    });
    deps.audit.note('code.redeemed', {
      actor: clientActor(client._id),
      subject: grantSubject(client._id, user._id),
      data: { client_id: client._id, grant_id: c.grantId },
    });
    noteTokenIssued(deps.audit, {
      clientId: client._id,
      userId: user._id,
      grantId: c.grantId,
      grantType: 'authorization_code',
      scope: c.scope,
      resources: target.resources,
      jkt: ctx.dpopJkt,
      refreshToken: tokens.refresh_token !== undefined,
    });
    sendOAuthJson(res, 200, tokens);
  } catch (err) {
    if (err instanceof GrantRevokedError) return sendOAuthError(res, 400, 'invalid_grant', INVALID_CODE);
    throw err;
  }
}
