// What happens to a validated authorization request: sign-in (or a second
// factor) when needed, consent when needed, then the code (or, for the
// implicit flow, the tokens). Used by the authorize endpoint and every page
// that hands control back to it.
import type { Request, Response } from 'express';
import { newId } from '../../lib/security/secrets.js';
import { issueAuthorizationCode } from '../../lib/store/authorization-codes.js';
import { constantTimeEqual } from '../../lib/security/secrets.js';
import type { AuthorizationRequestDoc, PendingAuthorization } from '../../lib/domain/pending-authorization.js';
import type { UserDoc } from '../../lib/domain/users.js';
import { finishAuthorizationRequest, saveAuthorizationRequest } from '../../lib/store/authorization-requests.js';
import type { Store } from '../../lib/store/db.js';
import { hasPasskey } from '../../lib/store/passkeys.js';
import { addSessionClient, updateSession } from '../../lib/store/sessions.js';
import { sendErrorPage } from '../html/layout.js';
import { browserBinding, currentBrowserBinding } from '../http/browser-binding.js';
import type { CookieDeps } from '../http/cookies.js';
import { sessionUser } from '../http/signed-in.js';
import type { ApiContext } from '../context.js';
import { auditScopeGrants, consentDecision } from './consent-decision.js';
import { sessionActor } from '../../lib/webhooks/event-sources.js';
import { sendAuthorizationResponse, type AuthorizationResponse } from './authorization-response.js';
import { isImplicit } from '../../lib/domain/response-type.js';
import type { AuthContext } from '../../lib/domain/claims.js';
import { issueImplicitResponse } from './implicit-issuance.js';
import { currentTimeMs } from '../../lib/runtime/clock.js';

/** `signer` and `config` (ID_TOKEN_CLAIMS): the implicit flow signs its tokens here. */
export type FlowDeps = Pick<ApiContext, 'issuer' | 'store' | 'findClient' | 'log' | 'secureCookies' | 'events' | 'signer' | 'config'>;

export const RESUME_PATH = '/api/oauth/authorize/resume';

export function resumeUrl(requestId: string): string {
  return `${RESUME_PATH}?request=${encodeURIComponent(requestId)}`;
}

/** Answers the client with an error, in the request's response mode (and ends the request). */
export async function respondWithError(res: Response, deps: FlowDeps, request: PendingAuthorization, error: string, description: string): Promise<void> {
  await finishAuthorizationRequest(deps.store, request);
  sendAuthorizationResponse(res, deps.issuer, request, { error, error_description: description });
}

/** The id under which the request waits for the user: stored only now, when a page is needed, and bound to this browser. */
async function storedId(req: Request, res: Response, deps: FlowDeps, request: PendingAuthorization): Promise<string> {
  if (!request._id) {
    const saved = await saveAuthorizationRequest(deps.store, request, browserBinding(req, res, deps));
    request._id = saved._id;
    request.browser = saved.browser;
  }
  return encodeURIComponent(request._id);
}

/** A stored request continues only in the browser that started it (see browser-binding.ts). */
export function startedInThisBrowser(req: Request, deps: CookieDeps, request: AuthorizationRequestDoc): boolean {
  const binding = currentBrowserBinding(req, deps);
  return binding !== null && constantTimeEqual(binding, request.browser ?? '');
}

export const OTHER_BROWSER = [
  'Request started elsewhere',
  'This sign-in request was started in another browser. Return to the application and start again from here.',
] as const;

/** True when the user has a second factor that can raise the session to acr=mfa. */
export async function hasSecondFactor(store: Store, user: UserDoc): Promise<boolean> {
  return Boolean(user.totp) || (await hasPasskey(store, user._id));
}

export async function proceedWithAuthorization(req: Request, res: Response, deps: FlowDeps, request: PendingAuthorization): Promise<void> {
  // Checked on resume, at the consent page and here, right before a code is issued.
  if (request._id && !startedInThisBrowser(req, deps, request as AuthorizationRequestDoc)) return sendErrorPage(res, 403, ...OTHER_BROWSER);
  const session = req.kfSession;
  // The session names the user: one whose user is gone or disabled was signed
  // out before this (signedInSession), and the token endpoint checks the user again.
  const userId = session?.userId ?? null;
  const noPrompt = request.prompt.includes('none');

  // 1. Authentication: a signed-in user, recent enough for prompt=login and max_age.
  // A sign-in made for this very request always satisfies both (max_age=0 would loop otherwise).
  const authTime = session?.authTime?.getTime() ?? 0;
  const signedInForThisRequest = authTime >= request.createdAt.getTime();
  // `claims` may name the one user the ID token may be about (OIDC Core §5.5.1): anyone else signs in again.
  const wantedSub = request.claims?.sub;
  const otherUser = wantedSub !== undefined && userId !== null && userId !== wantedSub;
  const mustSignIn =
    !userId ||
    (!signedInForThisRequest && (request.prompt.includes('login') || otherUser)) ||
    (!signedInForThisRequest && request.maxAge !== null && currentTimeMs() - authTime > request.maxAge * 1000);
  if (mustSignIn) {
    if (noPrompt) return respondWithError(res, deps, request, 'login_required', 'the user must sign in');
    return void res.redirect(303, `/login?request=${await storedId(req, res, deps, request)}`);
  }
  if (otherUser) return respondWithError(res, deps, request, 'access_denied', 'the account signed in is not the one the application asked for');

  // 2. acr_values=mfa not met: a second factor raises the session (when the user has one).
  const needsMfa = request.acrValues.includes('mfa') && session!.acr !== 'mfa';
  const user = needsMfa ? await sessionUser(deps, req) : null;
  if (needsMfa && user && (await hasSecondFactor(deps.store, user))) {
    if (noPrompt) return respondWithError(res, deps, request, 'login_required', 'the user must authenticate with a second factor');
    await updateSession(deps.store, session!._id, { pending: { userId: user._id, amr: session!.amr, at: new Date() } });
    return void res.redirect(303, `/login/second-factor?request=${await storedId(req, res, deps, request)}`);
  }

  // An essential acr (claims parameter) that this authentication does not meet is a failed authentication (OIDC Core §5.5.1.1).
  const acr = request.claims?.acr;
  if (acr?.essential && !acr.values.includes(session!.acr ?? 'pwd'))
    return respondWithError(
      res,
      deps,
      request,
      noPrompt ? 'login_required' : 'access_denied',
      `the authentication does not meet acr ${acr.values.join(' or ')}`,
    );

  // 3. Consent: skipped when every scope was granted before (single-team scopes
  // bound to one remembered team), unless prompt=consent or a site scope asks for the gate.
  const decision = await consentDecision(deps, request, userId, user);
  if (decision.kind === 'refuse') return respondWithError(res, deps, request, decision.error, decision.description);
  if (decision.kind === 'ask') {
    if (noPrompt) return respondWithError(res, deps, request, 'consent_required', 'the user has not allowed this application');
    return void res.redirect(303, `/consent?request=${await storedId(req, res, deps, request)}`);
  }

  // 4. The code, bound to client, redirect URI, PKCE challenge and this sign-in; for the implicit flow, the tokens themselves.
  const grantId = newId();
  let answer: AuthorizationResponse;
  if (isImplicit(request.responseType ?? 'code')) {
    const auth: AuthContext = { authTime: session!.authTime!, amr: session!.amr, acr: session!.acr ?? 'pwd', sid: session!.sid };
    const [client, tokenUser] = await Promise.all([deps.findClient(request.clientId), user ?? sessionUser(deps, req)]);
    // Deactivated, or gone, while the user was on a page: answered as an unknown client would be (never at its redirect URI).
    if (!client) return sendErrorPage(res, 400, 'Unknown application', 'No application is registered with this client_id.');
    if (!tokenUser) return respondWithError(res, deps, request, 'login_required', 'the user must sign in');
    answer = await issueImplicitResponse(deps, {
      responseType: request.responseType!,
      client,
      user: tokenUser,
      scope: decision.scope,
      grantId,
      nonce: request.nonce,
      auth,
      claims: { idToken: request.claims?.idToken ?? [], userinfo: request.claims?.userinfo ?? [] },
      resources: request.resources ?? [],
    });
  } else {
    const code = await issueAuthorizationCode(deps.store, {
      clientId: request.clientId,
      userId: userId,
      redirectUri: request.redirectUri,
      scope: decision.scope,
      nonce: request.nonce,
      codeChallenge: request.codeChallenge,
      authTime: session!.authTime!,
      amr: session!.amr,
      acr: session!.acr ?? 'pwd',
      sid: session!.sid,
      grantId,
      resources: request.resources ?? [],
      ...(request.claims ? { claims: { idToken: request.claims.idToken, userinfo: request.claims.userinfo } } : {}),
    });
    answer = { code };
  }
  await auditScopeGrants(
    deps,
    { userId, clientId: request.clientId, grantId, scope: decision.scope, siteGateMethod: request.siteGateMethod ?? null },
    sessionActor(userId),
  );
  await addSessionClient(deps.store, session!, request.clientId);
  await finishAuthorizationRequest(deps.store, request);
  deps.log.debug(`authorization ${'code' in answer ? 'code' : 'tokens (implicit)'} issued`, { client: request.clientId, user: userId });
  sendAuthorizationResponse(res, deps.issuer, request, answer);
}
