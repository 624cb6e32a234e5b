// The consent page: the application, whether Keyflow verified it, each scope
// in plain words, the team picker and the site-access gate when asked, Allow
// and Deny. A passkey for the gate is verified by two JSON endpoints driven by
// /assets/webauthn.js, then the page is shown again.
import express, { Router, type Request, type Response } from 'express';
import type { AuthorizationRequestDoc } from '../../lib/model/pending-authorization.js';
import { isSiteScope } from '../../lib/model/scopes.js';
import { bindTeamScopes, requestedTeamPermissions } from '../../lib/model/team-binding.js';
import type { UserDoc } from '../../lib/model/users.js';
import { isClientActive, type ClientDoc } from '../../lib/model/clients.js';
import { findAuthorizationRequest, markConsented, markSiteFactor } from '../../lib/store/authorization-requests.js';
import { findClient } from '../../lib/store/clients.js';
import { grantConsent } from '../../lib/authorization/consent-grant.js';
import { claimsBeyondScopes } from '../../lib/model/claims-request.js';
import type { SessionDoc } from '../../lib/model/sessions.js';
import { sendErrorPage } from '../html/layout.js';
import { consentPage, type ConsentExtras } from '../views/consent.js';
import { hasValidCsrf } from '../http/session.js';
import { sessionUser } from '../http/signed-in.js';
import { OTHER_BROWSER, proceedWithAuthorization, respondWithError, startedInThisBrowser, type FlowDeps } from '../protocol/authorization-flow.js';
import { teamChoices, teamGrantRefusal } from '../../lib/authorization/team-consent.js';
import { passkeyProvedHere, passSiteGate, siteGateStanding } from '../sign-in-checks/site-gate.js';
import { signInLimits } from '../sign-in-checks/sign-in-limits.js';
import { authenticationOptions, relyingParty, verifyPasskey } from '../sign-in-checks/webauthn.js';
import { fieldsOf, formText, raw } from '../http/input.js';
import type { ApiContext } from '../context.js';
import { PAGES } from '../paths.js';
import { currentDate } from '../../lib/runtime/clock.js';

const EXPIRED = ['Request expired', 'This sign-in request has expired or was already answered. Return to the application and start again.'] as const;

/** The stored request the page shows, and the user's answer to it (with the team picked and the site gate's fields). */
const ConsentQuery = fieldsOf({ request: raw });
const ConsentForm = fieldsOf({ request: raw, decision: raw, team: formText, confirmation: formText, code: formText });
const PasskeyAnswer = fieldsOf({ request: raw, response: raw });

export type ConsentDeps = FlowDeps & Pick<ApiContext, 'kek' | 'limits' | 'outbound' | 'events' | 'audit'>;

interface Context {
  request: AuthorizationRequestDoc;
  session: SessionDoc;
  user: UserDoc;
  client: ClientDoc;
}

export function consentRoutes(deps: ConsentDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  const json = express.json({ limit: '64kb' });
  const limits = signInLimits(deps);
  const rp = relyingParty(deps.issuer);

  /** The request, in the browser that started it, with a signed-in user; otherwise the answer is sent and null returned. */
  async function load(req: Request, res: Response, requestId: unknown): Promise<Context | null> {
    const request = await findAuthorizationRequest(deps.store, requestId);
    if (!request) return (sendErrorPage(res, 400, ...EXPIRED), null);
    if (!startedInThisBrowser(req, deps, request)) return (sendErrorPage(res, 403, ...OTHER_BROWSER), null);
    const session = req.kfSession;
    const user = await sessionUser(deps, req);
    if (!session || !user) return (res.redirect(303, `${PAGES.login}?request=${encodeURIComponent(request._id)}`), null);
    const client = await findClient(deps.store, request.clientId);
    if (!client || !isClientActive(client)) return (sendErrorPage(res, 400, 'Unknown application', 'This application no longer exists.'), null);
    return { request, session, user, client };
  }

  async function show(res: Response, c: Context, opts: { pickedTeam?: string; error?: string; status?: number } = {}): Promise<void> {
    const permissions = requestedTeamPermissions(c.request.scope);
    const extras: ConsentExtras = {
      teams: permissions.length ? await teamChoices(deps.store, c.user._id, permissions) : null,
      pickedTeam: opts.pickedTeam ?? null,
      site: c.request.scope.some(isSiteScope) ? await siteGateStanding(deps, c.user) : null,
      passkeyDone: passkeyProvedHere(c.request, c.user._id),
      ...(opts.error ? { error: opts.error, status: opts.status ?? 400 } : {}),
    };
    consentPage(res, c.session, c.client, c.request, extras);
  }

  router.get(PAGES.consent, async (req, res) => {
    const c = await load(req, res, ConsentQuery.parse(req.query).request);
    if (c) await show(res, c);
  });

  router.post(PAGES.consent, form, async (req, res) => {
    const body = ConsentForm.parse(req.body);
    const c = await load(req, res, body.request);
    if (!c) return;
    if (!hasValidCsrf(req, c.session)) return sendErrorPage(res, 400, 'Session expired', 'Your session expired. Go back and try again.');
    const { request, user } = c;
    if (body.decision !== 'allow') {
      deps.log.info('consent denied', { client: request.clientId, user: user._id });
      return respondWithError(res, deps, request, 'access_denied', 'the user denied the request');
    }
    // Single-team scopes: the team picked, checked against the user's role there now.
    const permissions = requestedTeamPermissions(request.scope);
    const teamId = permissions.length ? body.team : null;
    if (teamId !== null) {
      const refusal = teamId ? await teamGrantRefusal(deps.store, user._id, teamId, permissions) : 'Choose a team.';
      if (refusal) return show(res, c, { pickedTeam: teamId, error: refusal, status: teamId ? 403 : 400 });
    }
    let siteGateMethod: string | null = null;
    if (request.scope.some(isSiteScope)) {
      const gate = await passSiteGate(deps, limits, req, user, request, { confirmation: body.confirmation, code: body.code });
      if (!gate.ok) return show(res, c, { ...(teamId ? { pickedTeam: teamId } : {}), error: gate.message, status: gate.status });
      siteGateMethod = gate.method;
    }
    // Only the bound form is recorded: the consent names the team.
    await grantConsent(deps, {
      userId: user._id,
      clientId: request.clientId,
      scopes: teamId ? bindTeamScopes(request.scope, teamId) : request.scope,
      claims: claimsBeyondScopes(request.claims, request.scope),
    });
    await markConsented(deps.store, request._id, user._id, teamId, siteGateMethod);
    await proceedWithAuthorization(req, res, deps, { ...request, consentedAt: currentDate(), consentedBy: user._id, teamId, siteGateMethod });
  });

  // The site gate's passkey: options for the signed-in user's passkeys, then the answer, remembered on the request.
  // The options call names the request in its URL (/assets/webauthn.js posts an empty body there), the answer in its body.
  async function loadJson(req: Request, res: Response): Promise<Omit<Context, 'client'> | null> {
    const request = await findAuthorizationRequest(deps.store, PasskeyAnswer.parse(req.body).request ?? ConsentQuery.parse(req.query).request);
    const session = req.kfSession;
    const user = await sessionUser(deps, req);
    if (!request || !session || !user || !startedInThisBrowser(req, deps, request) || !hasValidCsrf(req, session)) {
      res.status(403).set('Cache-Control', 'no-store').json({ error: 'invalid_request', error_description: 'no consent in progress' });
      return null;
    }
    return { request, session, user };
  }

  router.post(PAGES.consentPasskeyOptions, json, async (req, res) => {
    const c = await loadJson(req, res);
    if (c) res.set('Cache-Control', 'no-store').json(await authenticationOptions(deps.store, rp, c.session, c.user));
  });

  router.post(PAGES.consentPasskey, json, async (req, res) => {
    const c = await loadJson(req, res);
    if (!c) return;
    const begun = await limits.beginSecondFactor(req, c.user._id);
    if (!begun.ok) return res.status(begun.status).set('Cache-Control', 'no-store').json({ error: 'slow_down', error_description: begun.error });
    if (!(await verifyPasskey(deps.store, rp, c.session, PasskeyAnswer.parse(req.body).response, c.user._id))) {
      await limits.failed(req, 'passkey', c.user.email, 'bad site-gate passkey');
      return res.status(401).set('Cache-Control', 'no-store').json({ error: 'access_denied', error_description: 'That passkey could not be verified.' });
    }
    await begun.attempt.release();
    await markSiteFactor(deps.store, c.request._id, c.user._id);
    res.set('Cache-Control', 'no-store').json({ redirect: `${PAGES.consent}?request=${encodeURIComponent(c.request._id)}` });
  });

  return router;
}
