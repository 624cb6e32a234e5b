// What happens to a validated authorization request: sign-in (or a second
// factor) when needed, consent when needed, then the code (or, for the
// implicit flow, the tokens). Used by the authorize endpoint and every page
// that hands control back to it. The rules are lib/authorization's
// (authentication-decision.ts, consent-decision.ts) and the implicit tokens
// lib/grants'; this module reads the session, stores the request when a page
// is needed, and answers.
import type { Request, Response } from 'express';
import { newId, constantTimeEqual } from '../../lib/security/secrets.js';
import { issueAuthorizationCode } from '../../lib/grants/authorization-codes.js';
import type { AuthorizationRequestDoc, PendingAuthorization } from '../../lib/model/pending-authorization.js';
import { finishAuthorizationRequest, saveAuthorizationRequest } from '../../lib/store/authorization-requests.js';
import { hasSecondFactor } from '../../lib/verification/second-factor.js';
import { addSessionClient, updateSession } from '../../lib/store/sessions.js';
import { sendErrorPage } from '../html/layout.js';
import { browserBinding, currentBrowserBinding } from '../http/browser-binding.js';
import type { CookieDeps } from '../http/cookies.js';
import { sessionUser } from '../http/signed-in.js';
import type { ApiContext } from '../context.js';
import { essentialAcrShortfall, signInDecision, wantsSecondFactor } from '../../lib/authorization/authentication-decision.js';
import { auditScopeGrants, consentDecision } from '../../lib/authorization/consent-decision.js';
import { sessionActor } from '../../lib/webhooks/event-sources.js';
import { sendAuthorizationResponse, type AuthorizationResponse } from './shared/authorization-response.js';
import { isImplicit } from '../../lib/model/response-type.js';
import type { AuthContext } from '../../lib/model/claims.js';
import { issueImplicitResponse } from '../../lib/grants/implicit-issuance.js';
import { AUTHORIZATION_RESUME, PAGES } from '../paths.js';
import { currentDate, currentTimeMs } from '../../lib/runtime/clock.js';

/** `signer` and `config` (ID_TOKEN_CLAIMS): the implicit flow signs its tokens here. */
export type FlowDeps = Pick<
  ApiContext,
  'issuer' | 'store' | 'kek' | 'findClient' | 'log' | 'secureCookies' | 'events' | 'audit' | 'signer' | 'config' | 'mlDsaResources'
>;

export function resumeUrl(requestId: string): string {
  return `${AUTHORIZATION_RESUME}?request=${encodeURIComponent(requestId)}`;
}

/** Answers the client with an error, in the request's response mode (and ends the request). */
export async function respondWithError(res: Response, deps: FlowDeps, request: PendingAuthorization, error: string, description: string): Promise<void> {
  await finishAuthorizationRequest(deps.store, request);
  await sendAuthorizationResponse(res, deps, request, { error, error_description: description });
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

export async function proceedWithAuthorization(req: Request, res: Response, deps: FlowDeps, request: PendingAuthorization): Promise<void> {
  // Checked on resume, at the consent page and here, right before a code is issued.
  if (request._id && !startedInThisBrowser(req, deps, request as AuthorizationRequestDoc)) return sendErrorPage(res, 403, ...OTHER_BROWSER);
  // The session names the user: one whose user is gone or disabled was signed
  // out before this (signedInSession), and the token endpoint checks the user again.
  const session = req.kfSession;
  const noPrompt = request.prompt.includes('none');

  // 1. Authentication: a signed-in user, recent enough for prompt=login and max_age.
  const signIn = signInDecision(request, session, currentTimeMs());
  if (signIn.kind === 'sign-in') {
    if (noPrompt) return respondWithError(res, deps, request, 'login_required', 'the user must sign in');
    return void res.redirect(303, `${PAGES.login}?request=${await storedId(req, res, deps, request)}`);
  }
  if (signIn.kind === 'other-user')
    return respondWithError(res, deps, request, 'access_denied', 'the account signed in is not the one the application asked for');
  const userId = signIn.userId;

  // 2. acr_values=mfa not met: a second factor raises the session (when the user has one).
  const needsMfa = wantsSecondFactor(request, session!.acr);
  const user = needsMfa ? await sessionUser(deps, req) : null;
  if (needsMfa && user && (await hasSecondFactor(deps.store, user))) {
    if (noPrompt) return respondWithError(res, deps, request, 'login_required', 'the user must authenticate with a second factor');
    await updateSession(deps.store, session!._id, { pending: { userId: user._id, amr: session!.amr, at: currentDate() } });
    return void res.redirect(303, `${PAGES.secondFactor}?request=${await storedId(req, res, deps, request)}`);
  }

  // An essential acr (claims parameter) that this authentication does not meet is a failed authentication (OIDC Core §5.5.1.1).
  const acrShortfall = essentialAcrShortfall(request, session!.acr);
  if (acrShortfall) return respondWithError(res, deps, request, noPrompt ? 'login_required' : 'access_denied', acrShortfall);

  // 3. Consent: skipped when every scope was granted before (single-team scopes
  // bound to one remembered team), unless prompt=consent or a site scope asks for the gate.
  const decision = await consentDecision(deps, request, userId, user);
  if (decision.kind === 'refuse') return respondWithError(res, deps, request, decision.error, decision.description);
  if (decision.kind === 'ask') {
    if (noPrompt) return respondWithError(res, deps, request, 'consent_required', 'the user has not allowed this application');
    return void res.redirect(303, `${PAGES.consent}?request=${await storedId(req, res, deps, request)}`);
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
    answer = await issueImplicitResponse(
      { ...deps, idTokenClaims: deps.config.idTokenClaims },
      {
        responseType: request.responseType!,
        client,
        user: tokenUser,
        scope: decision.scope,
        grantId,
        nonce: request.nonce,
        auth,
        claims: { idToken: request.claims?.idToken ?? [], userinfo: request.claims?.userinfo ?? [] },
        resources: request.resources ?? [],
      },
    );
  } else {
    const code = issueAuthorizationCode(deps, {
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
      ...(request.dpopJkt ? { dpopJkt: request.dpopJkt } : {}),
    });
    answer = { code };
    deps.audit.note('code.issued', {
      actor: sessionActor(userId),
      subject: { userId, clientId: request.clientId },
      data: { client_id: request.clientId, grant_id: grantId, scopes: decision.scope },
    });
  }
  await auditScopeGrants(
    deps,
    { userId, clientId: request.clientId, grantId, scope: decision.scope, siteGateMethod: request.siteGateMethod ?? null },
    sessionActor(userId),
  );
  await addSessionClient(deps.store, session!, request.clientId);
  await finishAuthorizationRequest(deps.store, request);
  deps.log.debug(`authorization ${'code' in answer ? 'code' : 'tokens (implicit)'} issued`, { client: request.clientId, user: userId });
  await sendAuthorizationResponse(res, deps, request, answer);
}
