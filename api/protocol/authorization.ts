// GET and POST /api/oauth/authorize (RFC 6749 §4.1, OIDC Core §3.1.2) and the
// resume point the sign-in and consent pages return to. A request may also
// name a pushed authorization request (RFC 9126 §4): client_id + request_uri;
// or carry its parameters in a request object (OIDC Core §6, RFC 9101):
// `request`, or a `request_uri` of the client's (shared/request-object.ts).
import { allowedResponseTypes, mustPushRequests } from '../../lib/model/fapi2.js';
import express, { Router, type Request, type Response } from 'express';
import { isPushedRequestReference, refusalTarget, validateAuthorizationRequest } from '../../lib/model/authorization-request.js';
import { checkRedirectUri } from '../../lib/model/redirect-uri.js';
import { findAuthorizationRequest } from '../../lib/store/authorization-requests.js';
import type { ClientDoc } from '../../lib/model/clients.js';
import type { PendingAuthorization } from '../../lib/model/pending-authorization.js';
import { isDependencyUnavailable } from '../../lib/runtime/unavailable.js';
import { usePushedRequest } from '../../lib/store/par-requests.js';
import { sendErrorPage } from '../html/layout.js';
import { proceedWithAuthorization, type FlowDeps } from './authorization-flow.js';
import { sendAuthorizationResponse } from './shared/authorization-response.js';
import { resolveRequestObject, type RequestObjectError } from './shared/request-object.js';
import { AllFields, fieldsOf, FormValues, raw } from '../http/input.js';
import type { ApiContext } from '../context.js';
import { AUTHORIZATION_RESUME, ENDPOINTS } from '../paths.js';
import { currentDate } from '../../lib/runtime/clock.js';

export type AuthorizeDeps = FlowDeps & Pick<ApiContext, 'requestObjects'>;

const REQUEST_URI_PROBLEMS = {
  unknown: 'The request_uri is unknown or has expired.',
  expired: 'The request_uri has expired.',
  used: 'The request_uri was already used.',
  'other-client': 'The request_uri was not pushed by this application.',
} as const;

/**
 * The flow of a validated request. When MongoDB or Temporal cannot serve it in
 * time, the client hears so at its redirect URI — `temporarily_unavailable`
 * (RFC 6749 §4.1.2.1) — as the request's redirect URI is one it registered.
 */
async function proceed(req: Request, res: Response, deps: FlowDeps, request: PendingAuthorization): Promise<void> {
  try {
    await proceedWithAuthorization(req, res, deps, request);
  } catch (err) {
    if (res.headersSent || !isDependencyUnavailable(err)) throw err;
    deps.log.warn('dependency unavailable: temporarily_unavailable to the client', { client: request.clientId, error: (err as Error).message.split('\n')[0] });
    await sendAuthorizationResponse(res, deps, request, {
      error: 'temporarily_unavailable',
      error_description: 'the authorization server cannot answer right now; try again shortly',
    });
  }
}

/**
 * client_id + request_uri of a pushed request. Only the pushed parameters
 * apply: any other parameter is ignored (RFC 9126 §4). Every failure is
 * an error page, never a redirect: without a usable pushed request there is no
 * redirect URI the client proved at the PAR endpoint.
 */
async function authorizePushed(req: Request, res: Response, deps: FlowDeps, client: ClientDoc | null, requestUri: string): Promise<void> {
  if (!client) return sendErrorPage(res, 400, 'Unknown application', 'No application is registered with this client_id.');
  const used = await usePushedRequest(deps.store, requestUri, client._id);
  if (used.status !== 'ok')
    return sendErrorPage(res, 400, 'Invalid request', `${REQUEST_URI_PROBLEMS[used.reason]} Return to the application and start again.`);
  // The client's redirect URIs may have changed since the push (at most 90 seconds ago).
  const decision = checkRedirectUri(client.redirectUris, used.params.redirectUri);
  if (!decision.ok) return sendErrorPage(res, 400, 'Invalid redirect URI', `The redirect_uri cannot be used: ${decision.reason}.`);
  await proceed(req, res, deps, { ...used.params, createdAt: currentDate(), consentedAt: null, consentedBy: null });
}

/**
 * A request object that cannot be used: back to the client at the redirect URI
 * it names (when registered: refusalTarget), else Keyflow's error page.
 */
async function refuseRequestObject(
  res: Response,
  deps: AuthorizeDeps,
  client: ClientDoc,
  reply: Record<string, unknown>,
  error: RequestObjectError,
  description: string,
): Promise<void> {
  const to = refusalTarget(reply, { ...client, clientId: client._id, responseTypes: allowedResponseTypes(client) });
  if (!to)
    return sendErrorPage(res, 400, 'Invalid request', `The application's request cannot be used: ${description}. Return to the application and start again.`);
  await sendAuthorizationResponse(res, deps, to, { error, error_description: description });
}

/** The request's parameters (a GET's query or a POST's form): the same checks and the same flow either way. */
async function authorize(req: Request, res: Response, deps: AuthorizeDeps, query: Record<string, unknown>): Promise<void> {
  const clientId = typeof query.client_id === 'string' && query.client_id.length <= 200 ? query.client_id : null;
  const client = clientId ? await deps.findClient(clientId) : null;
  if (clientId && isPushedRequestReference(query) && typeof query.request_uri === 'string') return authorizePushed(req, res, deps, client, query.request_uri);
  // A request object's parameters replace the query's (lib/model/request-object.ts). Not for a
  // client that must use PAR: it is refused below without Keyflow fetching anything.
  let params = query;
  if (client && !mustPushRequests(client)) {
    const resolved = await resolveRequestObject(deps.requestObjects, client, query);
    if (resolved.kind === 'error') return refuseRequestObject(res, deps, client, resolved.reply, resolved.error, resolved.description);
    if (resolved.kind === 'ok') params = resolved.params;
  }
  const result = validateAuthorizationRequest(params, client && { ...client, clientId: client._id, responseTypes: allowedResponseTypes(client) });
  if (result.kind === 'error-page') return sendErrorPage(res, 400, result.title, result.message);
  if (client && mustPushRequests(client)) {
    // RFC 9126 §5: this client's requests must be pushed. The redirect URI passed the
    // client's registered entries, so the refusal goes back to it like any other error.
    const description = 'this application must use pushed authorization requests (request_uri from the PAR endpoint)';
    return sendAuthorizationResponse(res, deps, result.kind === 'ok' ? result.params : result, {
      error: 'invalid_request',
      error_description: description,
    });
  }
  if (result.kind === 'redirect-error') return sendAuthorizationResponse(res, deps, result, { error: result.error, error_description: result.description });
  // Stored only if the user must see a page; a signed-in, consented user gets the code at once.
  await proceed(req, res, deps, { ...result.params, createdAt: currentDate(), consentedAt: null, consentedBy: null });
}

/**
 * A POST's form, as the query of the same request by GET. URLSearchParams
 * encodes as browsers encode forms, so the query is about as long as the body.
 */
function asQuery(form: Record<string, string | string[]>): string {
  const query = new URLSearchParams();
  for (const [name, values] of Object.entries(form)) for (const value of typeof values === 'string' ? [values] : values) query.append(name, value);
  return query.toString();
}

/** The stored authorization request a sign-in or consent page resumes (looked up only when it is a string). */
const ResumeQuery = fieldsOf({ request: raw });

export function authorizeRoutes(deps: AuthorizeDeps): Router {
  const router = Router();
  // Small: the form may come back as a GET's query (below), which must fit what servers take as a URL.
  const form = express.urlencoded({ extended: false, limit: '8kb' });

  router.get(ENDPOINTS.authorization, (req, res) => authorize(req, res, deps, AllFields.parse(req.query)));

  // OIDC Core §3.1.2.1: the authorization endpoint takes the request as a form too.
  // Only the form counts: a POST's query parameters are not mixed in (one source, as
  // for a GET; nothing the form leaves out can be slipped in through the URL).
  router.post(ENDPOINTS.authorization, form, async (req, res) => {
    const body = FormValues.safeParse(req.body);
    if (!req.is('application/x-www-form-urlencoded') || !body.success)
      return sendErrorPage(res, 400, 'Invalid request', 'An authorization request sent by POST must be a form (application/x-www-form-urlencoded).');
    // An RP's page posting here is cross-site, so the SameSite=Lax cookies (session,
    // browser binding) do not come with it: a signed-in user would look signed out,
    // prompt=none would answer login_required, and a new binding cookie set now would
    // replace the browser's own and orphan its other pending requests. So a POST
    // without the session cookie is sent on, unanswered, as the same request by GET
    // (a top-level navigation, which carries them); one with it is answered here.
    // A pushed request is not used up before the GET either.
    if (!req.kfSession) return res.redirect(303, `${ENDPOINTS.authorization}?${asQuery(body.data)}`);
    await authorize(req, res, deps, body.data);
  });

  router.get(AUTHORIZATION_RESUME, async (req, res) => {
    const request = await findAuthorizationRequest(deps.store, ResumeQuery.parse(req.query).request);
    if (!request)
      return sendErrorPage(res, 400, 'Request expired', 'This sign-in request has expired or was already answered. Return to the application and start again.');
    await proceed(req, res, deps, request); // checks the browser binding first
  });

  return router;
}
