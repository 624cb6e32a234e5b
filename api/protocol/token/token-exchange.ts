// grant_type=urn:ietf:params:oauth:grant-type:token-exchange (RFC 8693), the
// Keyflow's rules: an authenticated confidential client exchanges a valid Keyflow
// access token (subject_token) that was issued to it, or that carries the
// cross-app scope `app:<its client_id>:*`, for a new access token:
// - scope: a subset of the subject token's that the requesting client may hold
//   (its allowedScopes): by default the subject token's scopes the client may
//   hold (the others are dropped); asked for explicitly, a scope it may not hold
//   is invalid_scope. offline_access is always dropped, because the result is
//   never refreshable (no refresh token);
// - audience: the `resource` (absolute URIs, RFC 8707) and `audience` values,
//   each one the requesting client lists in its allowedResources, after the
//   issuer when the new scope has a scope of Keyflow's own API (like any access
//   token); introspection and revocation work whatever the audience;
// - same `sub`, same grant (revoking the grant revokes the exchanged token),
//   same authentication context; `client_id` is the requesting client. No `act`
//   claim: the requesting client is already the token's client_id.
// - DPoP: a subject token bound to a key is exchanged only with a proof of that
//   key; a proof binds the new token (RFC 9449).
import type { Request, Response } from 'express';
import { MAX_RESOURCES, parseAllowedResources } from '../../../lib/model/resources.js';
import { crossAppClientId, isSiteScope, parseScopeParam } from '../../../lib/model/scopes.js';
import { verifyAccessToken } from '../shared/bearer.js';
import { sendOAuthError, sendOAuthJson } from '../shared/errors.js';
import { issueAccessToken } from '../../../lib/grants/tokens.js';
import { noteTokenIssued } from '../../../lib/grants/token-audit.js';
import type { GrantContext } from './context.js';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

const MAX_AUDIENCE_LENGTH = 2048;

type AudienceCheck = { ok: true; audiences: string[] } | { ok: false; description: string };

/**
 * RFC 8693 §2.1 `audience`: names of the targets (non-empty, bounded, no
 * whitespace), each one the client lists in `allowed` (its allowedResources),
 * like a `resource`: a client cannot mint tokens for audiences of its choice.
 */
function parseAudiences(raw: unknown, allowed: readonly string[]): AudienceCheck {
  if (raw === undefined) return { ok: true, audiences: [] };
  const values = Array.isArray(raw) ? raw : [raw];
  if (values.length > MAX_RESOURCES) return { ok: false, description: `at most ${MAX_RESOURCES} audience values are accepted` };
  const audiences: string[] = [];
  for (const v of values) {
    if (typeof v !== 'string' || v.length === 0 || v.length > MAX_AUDIENCE_LENGTH || /\s/.test(v)) {
      return { ok: false, description: `audience values must be 1 to ${MAX_AUDIENCE_LENGTH} characters without whitespace` };
    }
    if (!allowed.includes(v)) return { ok: false, description: `this application may not ask for the audience ${v}` };
    if (!audiences.includes(v)) audiences.push(v);
  }
  return { ok: true, audiences };
}

export async function tokenExchangeGrant(req: Request, res: Response, { client, deps, dpopJkt, params }: GrantContext): Promise<void> {
  const body = params.fields;
  // Only a confidential client may exchange tokens (it authenticated above, by any of its methods).
  if (client.public) return sendOAuthError(res, 400, 'unauthorized_client', 'token exchange requires an authenticated confidential client');
  const subjectToken = body.subject_token;
  if (typeof subjectToken !== 'string' || subjectToken.length === 0 || subjectToken.length > 16_384)
    return sendOAuthError(res, 400, 'invalid_request', 'subject_token is required');
  if (body.subject_token_type !== ACCESS_TOKEN_TYPE) return sendOAuthError(res, 400, 'invalid_request', `subject_token_type must be ${ACCESS_TOKEN_TYPE}`);
  if (body.actor_token !== undefined || body.actor_token_type !== undefined)
    return sendOAuthError(res, 400, 'invalid_request', 'actor tokens are not supported');
  if (body.requested_token_type !== undefined && body.requested_token_type !== ACCESS_TOKEN_TYPE) {
    return sendOAuthError(res, 400, 'invalid_request', `requested_token_type must be ${ACCESS_TOKEN_TYPE}`);
  }
  const allowedResources = client.allowedResources ?? [];
  const resources = parseAllowedResources(params.resource, allowedResources);
  if (!resources.ok) return sendOAuthError(res, 400, resources.error, resources.description);
  const audiences = parseAudiences(params.audience, allowedResources);
  if (!audiences.ok) return sendOAuthError(res, 400, 'invalid_target', audiences.description);

  // Any audience: a token meant for another resource may still be exchanged by the client it names.
  const subject = await verifyAccessToken({ issuer: deps.issuer, keyring: deps.keyring, store: deps.store }, subjectToken);
  // Only Keyflow's own JWT access tokens (not personal access tokens, which have no issuer claim or grant).
  if (!subject || subject.claims.iss !== deps.issuer || typeof subject.claims.jti !== 'string') {
    return sendOAuthError(res, 400, 'invalid_grant', 'subject_token is invalid, expired or revoked');
  }
  const namesClient = subject.clientId === client._id || subject.scope.some((s) => crossAppClientId(s) === client._id);
  if (!namesClient) return sendOAuthError(res, 400, 'invalid_grant', 'subject_token was not issued to this client and carries no cross-app scope naming it');
  const boundJkt = (subject.claims.cnf as { jkt?: unknown } | undefined)?.jkt;
  if (typeof boundJkt === 'string' && dpopJkt !== boundJkt)
    return sendOAuthError(res, 400, 'invalid_grant', 'subject_token is DPoP-bound: a DPoP proof of its key is required');

  // The new token is the requesting client's: it holds only scopes that client may hold,
  // whatever the subject token (another client's) carries. Site scopes are never
  // passed on (their grant needs the consent gate), and a team binding belongs to
  // the client it was consented to (the client lists `team:read`, not a bound form).
  const mayHold = (s: string) => client.allowedScopes.includes(s) && !isSiteScope(s);
  let scope = subject.scope.filter(mayHold);
  if (body.scope !== undefined) {
    const requested = parseScopeParam(typeof body.scope === 'string' ? body.scope : '');
    const extra = requested.find((s) => !subject.scope.includes(s));
    if (requested.length === 0 || extra)
      return sendOAuthError(res, 400, 'invalid_scope', extra ? `the scope ${extra} is not in the subject_token` : 'scope must not be empty');
    const refused = requested.find((s) => s !== 'offline_access' && !mayHold(s));
    if (refused) return sendOAuthError(res, 400, 'invalid_scope', `this application may not hold the scope ${refused}`);
    scope = requested;
  }
  scope = scope.filter((s) => s !== 'offline_access');
  if (scope.length === 0)
    return sendOAuthError(res, 400, 'invalid_scope', 'no scope left to grant (an exchanged token cannot be refreshed, so offline_access is not granted)');

  const c = subject.claims;
  const auth = {
    authTime: new Date((typeof c.auth_time === 'number' ? c.auth_time : 0) * 1000),
    amr: Array.isArray(c.amr) ? (c.amr as string[]) : [],
    acr: typeof c.acr === 'string' ? c.acr : 'pwd',
    sid: typeof c.sid === 'string' ? c.sid : null,
  };
  const audience = [...resources.resources, ...audiences.audiences.filter((a) => !resources.resources.includes(a))];
  const token = await issueAccessToken(deps, { client, userId: subject.userId, scope, grantId: subject.grantId, auth, jkt: dpopJkt, resources: audience });
  deps.log.debug('token exchanged', { client: client._id, subjectClient: subject.clientId });
  noteTokenIssued(deps.audit, {
    clientId: client._id,
    // A client's own token (client_credentials) has the client as its subject: no user.
    userId: subject.userId === subject.clientId ? null : subject.userId,
    grantId: subject.grantId,
    grantType: TOKEN_EXCHANGE_GRANT,
    scope,
    resources: audience,
    jkt: dpopJkt,
    refreshToken: false,
  });
  // Never refreshable: no refresh_token, whatever the scope.
  sendOAuthJson(res, 200, { ...token, issued_token_type: ACCESS_TOKEN_TYPE });
}
