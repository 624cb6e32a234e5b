// The consent page: the application, whether Keyflow verified it, each scope
// in plain words, Allow and Deny.
import express, { Router } from 'express';
import { findAuthorizationRequest, markConsented } from '../../lib/store/authorization-requests.js';
import { findClient } from '../../lib/store/clients.js';
import { recordConsent } from '../../lib/store/consents.js';
import { sendErrorPage } from '../html/layout.js';
import { consentPage } from '../views/consent.js';
import { hasValidCsrf } from '../http/session.js';
import { OTHER_BROWSER, proceedWithAuthorization, redirectWithError, startedInThisBrowser, type FlowDeps } from '../oauth/authorization-flow.js';
import { fieldsOf, raw } from '../http/input.js';

const EXPIRED = ['Request expired', 'This sign-in request has expired or was already answered. Return to the application and start again.'] as const;

/** The stored request the page shows, and the user's answer to it. */
const ConsentQuery = fieldsOf({ request: raw });
const ConsentForm = fieldsOf({ request: raw, decision: raw });

export function consentRoutes(deps: FlowDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  router.get('/consent', async (req, res) => {
    const request = await findAuthorizationRequest(deps.store, ConsentQuery.parse(req.query).request);
    if (!request) return sendErrorPage(res, 400, ...EXPIRED);
    if (!startedInThisBrowser(req, deps, request)) return sendErrorPage(res, 403, ...OTHER_BROWSER);
    const session = req.kfSession;
    if (!session?.userId) return res.redirect(303, `/login?request=${encodeURIComponent(request._id)}`);
    const client = await findClient(deps.store, request.clientId);
    if (!client) return sendErrorPage(res, 400, 'Unknown application', 'This application no longer exists.');
    consentPage(res, session, client, request);
  });

  router.post('/consent', form, async (req, res) => {
    const body = ConsentForm.parse(req.body);
    const request = await findAuthorizationRequest(deps.store, body.request);
    if (!request) return sendErrorPage(res, 400, ...EXPIRED);
    if (!startedInThisBrowser(req, deps, request)) return sendErrorPage(res, 403, ...OTHER_BROWSER);
    const session = req.kfSession;
    if (!session?.userId) return res.redirect(303, `/login?request=${encodeURIComponent(request._id)}`);
    if (!hasValidCsrf(req, session)) return sendErrorPage(res, 400, 'Session expired', 'Your session expired. Go back and try again.');
    if (body.decision !== 'allow') {
      deps.log.info('consent denied', { client: request.clientId, user: session.userId });
      return redirectWithError(res, deps, request, 'access_denied', 'the user denied the request');
    }
    await recordConsent(deps.store, session.userId, request.clientId, request.scope);
    await markConsented(deps.store, request._id, session.userId);
    await proceedWithAuthorization(req, res, deps, { ...request, consentedAt: new Date(), consentedBy: session.userId });
  });

  return router;
}
