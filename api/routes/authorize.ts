// GET /api/oauth/authorize (RFC 6749 §4.1, OIDC Core §3.1.2) and the resume
// point the sign-in and consent pages return to.
import { Router } from 'express';
import { validateAuthorizationRequest } from '../../domain/authorization-request.js';
import { findAuthorizationRequest } from '../../store/authorization-requests.js';
import { sendErrorPage } from '../html/layout.js';
import { proceedWithAuthorization, RESUME_PATH, type FlowDeps } from '../oauth/authorization-flow.js';
import { buildRedirect } from '../../domain/authorization-request.js';

export function authorizeRoutes(deps: FlowDeps): Router {
  const router = Router();

  router.get('/api/oauth/authorize', async (req, res) => {
    const clientId = typeof req.query.client_id === 'string' && req.query.client_id.length <= 200 ? req.query.client_id : null;
    const client = clientId ? await deps.findClient(clientId) : null;
    const result = validateAuthorizationRequest(req.query as Record<string, unknown>, client && { ...client, clientId: client._id });
    if (result.kind === 'error-page') return sendErrorPage(res, 400, result.title, result.message);
    if (result.kind === 'redirect-error') {
      return res.redirect(303, buildRedirect(result.redirectUri, { error: result.error, error_description: result.description, state: result.state, iss: deps.issuer }));
    }
    // Stored only if the user must see a page; a signed-in, consented user gets the code at once.
    await proceedWithAuthorization(req, res, deps, { ...result.params, createdAt: new Date(), consentedAt: null });
  });

  router.get(RESUME_PATH, async (req, res) => {
    const request = await findAuthorizationRequest(deps.store, req.query.request);
    if (!request) return sendErrorPage(res, 400, 'Request expired', 'This sign-in request has expired or was already answered. Return to the application and start again.');
    await proceedWithAuthorization(req, res, deps, request);
  });

  return router;
}
