// POST /api/oauth/token: the form, client authentication and a DPoP proof,
// then the grant type's handler (one module per grant type beside this one).
import express, { Router } from 'express';
import { authenticateClient, sendClientAuthError } from '../shared/client-auth.js';
import { describeRequest, type FinishedRequest } from '../../http/observe.js';
import { clientDpopProof } from '../shared/dpop.js';
import { methodNotAllowed } from '../../http/errors.js';
import { FormValues, singleValues } from '../../http/input.js';
import { sendOAuthError } from '../shared/errors.js';
import { authorizationCodeGrant } from './authorization-code.js';
import type { GrantContext, TokenDeps } from './context.js';
import { refreshTokenGrant } from './refresh-token.js';
import { DEVICE_CODE_GRANT, deviceCodeGrant } from './device-code.js';
import { TOKEN_EXCHANGE_GRANT, tokenExchangeGrant } from './token-exchange.js';
import { CLIENT_CREDENTIALS_GRANT, clientCredentialsGrant } from './client-credentials.js';
import { ENDPOINTS } from '../../paths.js';
import { fapi2GrantRefusal, isFapi2, mayUseGrant } from '../../../lib/model/fapi2.js';
import { grantTypeRefusal } from '../../../lib/model/grant-types.js';

type GrantHandler = (req: express.Request, res: express.Response, ctx: GrantContext) => Promise<void>;

/** Grant types the token endpoint serves; discovery lists exactly these. */
export const GRANT_HANDLERS: Record<string, GrantHandler> = {
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
  [DEVICE_CODE_GRANT]: deviceCodeGrant,
  [TOKEN_EXCHANGE_GRANT]: tokenExchangeGrant,
  [CLIENT_CREDENTIALS_GRANT]: clientCredentialsGrant,
};

/**
 * The outcome of an answered token request, for its counter: 'issued', the
 * OAuth error code sent, or what the status says when the error handler
 * answered (a body the parser refused, a dependency down, a fault).
 */
export function tokenOutcome(request: Pick<FinishedRequest, 'status' | 'error'>): string {
  if (request.status < 400) return 'issued';
  if (request.error) return request.error;
  if (request.status === 503) return 'temporarily_unavailable';
  return request.status >= 500 ? 'server_error' : 'invalid_request';
}

export function tokenRoutes(deps: TokenDeps): Router {
  const router = Router();
  router.post(ENDPOINTS.token, express.urlencoded({ extended: false, limit: '64kb' }), async (req, res) => {
    if (!req.is('application/x-www-form-urlencoded')) {
      return sendOAuthError(res, 400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
    }
    const form = FormValues.safeParse(req.body);
    if (!form.success) return sendOAuthError(res, 400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
    const { resource, audience, ...rest } = form.data;
    // resource (RFC 8707) and audience (RFC 8693) are repeatable; the others are not.
    const single = singleValues(rest);
    if ('repeated' in single) return sendOAuthError(res, 400, 'invalid_request', `${single.repeated} must appear once`);
    const params = { fields: single.fields, resource, audience };
    const grantType = single.fields.grant_type;
    if (typeof grantType !== 'string' || !grantType) return sendOAuthError(res, 400, 'invalid_request', 'grant_type is required');
    const handler = GRANT_HANDLERS[grantType];
    if (!handler) return sendOAuthError(res, 400, 'unsupported_grant_type', `grant_type ${grantType} is not supported`);
    describeRequest(res, { grantType });
    const auth = await authenticateClient(deps.findClient, req, deps.clientAssertions);
    if (!auth.ok) return sendClientAuthError(res, auth);
    if (!mayUseGrant(auth.client, grantType)) return sendOAuthError(res, 400, 'unauthorized_client', fapi2GrantRefusal(grantType));
    const notRegistered = grantTypeRefusal(auth.client, grantType);
    if (notRegistered) return sendOAuthError(res, 400, 'unauthorized_client', notRegistered);
    // DPoP (RFC 9449 §5): a valid proof binds the issued tokens to its key.
    const dpop = await clientDpopProof(deps, req, auth.client);
    if (dpop.kind === 'error') return sendOAuthError(res, 400, 'invalid_dpop_proof', dpop.description);
    if (dpop.kind === 'none' && isFapi2(auth.client)) {
      // FAPI 2.0 §5.3.2.1: sender-constrained access tokens only (DPoP is the way Keyflow offers; RFC 9449 §5.2).
      return sendOAuthError(res, 400, 'invalid_request', 'a FAPI 2.0 client must send a DPoP proof: its access tokens are sender-constrained');
    }
    const dpopJkt = dpop.kind === 'ok' ? dpop.jkt : undefined;
    await handler(req, res, { client: auth.client, deps, dpopJkt, params });
  });
  router.all(ENDPOINTS.token, methodNotAllowed(['POST']));
  return router;
}
