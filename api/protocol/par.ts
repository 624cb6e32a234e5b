// POST /api/oauth/par (RFC 9126): a client pushes its authorization request
// over the back channel, authenticated, and gets a short-lived, single-use
// request_uri to send the browser to the authorization endpoint with.
// Parameters are checked exactly like the authorization endpoint's; every
// error is JSON 400 {error, error_description} (no redirect). The request may
// be pushed as a request object (`request`, RFC 9126 §3), verified like one
// sent to the authorization endpoint.
import express, { Router } from 'express';
import { allowedResponseTypes } from '../../lib/model/fapi2.js';
import { clientDpopProof } from './shared/dpop.js';
import { pushedRequestUriProblem, validatePushedAuthorizationRequest } from '../../lib/model/authorization-request.js';
import { savePushedRequest } from '../../lib/store/par-requests.js';
import { methodNotAllowed } from '../http/errors.js';
import { admitClient, limitPerIp } from '../http/request-limits.js';
import { authenticateClient, sendClientAuthError } from './shared/client-auth.js';
import { sendOAuthError, sendOAuthJson } from './shared/errors.js';
import { resolveRequestObject } from './shared/request-object.js';
import { FormValues } from '../http/input.js';
import type { ApiContext } from '../context.js';
import { ENDPOINTS } from '../paths.js';

export type ParDeps = Pick<ApiContext, 'issuer' | 'store' | 'findClient' | 'clientAssertions' | 'requestObjects' | 'log' | 'limits'>;

/** Parameters of client authentication: not part of the authorization request. */
const AUTH_FIELDS = ['client_secret', 'client_assertion', 'client_assertion_type'];

export function parRoutes(deps: ParDeps): Router {
  const router = Router();
  // Each request stores a document: limited per address and per client before anything is stored.
  router.post(ENDPOINTS.pushedAuthorizationRequest, limitPerIp(deps, 'par'), express.urlencoded({ extended: false, limit: '64kb' }), async (req, res) => {
    if (!req.is('application/x-www-form-urlencoded')) {
      return sendOAuthError(res, 400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
    }
    const form = FormValues.safeParse(req.body);
    if (!form.success) return sendOAuthError(res, 400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
    const body = form.data;
    const auth = await authenticateClient(deps.findClient, req, deps.clientAssertions);
    if (!auth.ok) return sendClientAuthError(res, auth);
    const client = auth.client;
    if (!(await admitClient(deps, res, 'par', client._id))) return;
    for (const field of AUTH_FIELDS) if (Array.isArray(body[field])) return sendOAuthError(res, 400, 'invalid_request', `${field} must appear once`);
    let params: Record<string, unknown> = Object.fromEntries(Object.entries(body).filter(([k]) => !AUTH_FIELDS.includes(k)));
    // Only a `request`: a pushed request_uri is refused before anything could fetch it.
    const pushedUri = pushedRequestUriProblem(params);
    if (pushedUri) return sendOAuthError(res, 400, 'invalid_request', pushedUri);
    if (params.request !== undefined || client.requireSignedRequestObject) {
      // The authenticated client is the client_id outside the object when the form names none (client_secret_basic).
      const resolved = await resolveRequestObject(deps.requestObjects, client, { client_id: client._id, ...params });
      if (resolved.kind === 'error') return sendOAuthError(res, 400, resolved.error, resolved.description);
      if (resolved.kind === 'ok') params = resolved.params;
    }
    const checked = validatePushedAuthorizationRequest(params, { ...client, clientId: client._id, responseTypes: allowedResponseTypes(client) });
    if (checked.kind === 'error') return sendOAuthError(res, 400, checked.error, checked.description);
    // RFC 9449 §10.1: a DPoP proof with the push binds the code to its key, as dpop_jkt would; both must agree.
    const dpop = await clientDpopProof(deps, req, client);
    if (dpop.kind === 'error') return sendOAuthError(res, 400, 'invalid_dpop_proof', dpop.description);
    if (dpop.kind === 'ok') {
      if (checked.params.dpopJkt && checked.params.dpopJkt !== dpop.jkt)
        return sendOAuthError(res, 400, 'invalid_dpop_proof', 'dpop_jkt does not match the key of the DPoP proof');
      checked.params.dpopJkt = dpop.jkt;
    }
    const { requestUri, expiresIn } = await savePushedRequest(deps.store, checked.params);
    deps.log.debug('authorization request pushed', { client: client._id });
    sendOAuthJson(res, 201, { request_uri: requestUri, expires_in: expiresIn });
  });
  router.all(ENDPOINTS.pushedAuthorizationRequest, methodNotAllowed(['POST']));
  return router;
}
