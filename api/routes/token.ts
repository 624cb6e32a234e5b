// POST /api/oauth/token: client authentication, then the grant's handler.
import express, { Router } from 'express';
import { authenticateClient, sendClientAuthError } from '../oauth/client-auth.js';
import { methodNotAllowed } from '../http/errors.js';
import { sendOAuthError } from '../oauth/errors.js';
import { authorizationCodeGrant } from '../oauth/grants/authorization-code.js';
import type { GrantContext, TokenDeps } from '../oauth/grants/context.js';
import { refreshTokenGrant } from '../oauth/grants/refresh-token.js';
import { DEVICE_CODE_GRANT, deviceCodeGrant } from '../oauth/grants/device-code.js';

type GrantHandler = (req: express.Request, res: express.Response, ctx: GrantContext) => Promise<void>;

/** Grant types the token endpoint serves; discovery lists exactly these. */
export const GRANT_HANDLERS: Record<string, GrantHandler> = {
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
  [DEVICE_CODE_GRANT]: deviceCodeGrant,
};

export function tokenRoutes(deps: TokenDeps): Router {
  const router = Router();
  router.post('/api/oauth/token', express.urlencoded({ extended: false, limit: '64kb' }), async (req, res) => {
    if (!req.is('application/x-www-form-urlencoded')) {
      return sendOAuthError(res, 400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
    }
    const body = req.body as Record<string, unknown>;
    for (const [k, v] of Object.entries(body)) {
      if (typeof v !== 'string') return sendOAuthError(res, 400, 'invalid_request', `${k} must appear once`);
    }
    const grantType = body.grant_type;
    if (typeof grantType !== 'string' || !grantType) return sendOAuthError(res, 400, 'invalid_request', 'grant_type is required');
    const handler = GRANT_HANDLERS[grantType];
    if (!handler) return sendOAuthError(res, 400, 'unsupported_grant_type', `grant_type ${grantType} is not supported`);
    const auth = await authenticateClient(deps.findClient, req);
    if (!auth.ok) return sendClientAuthError(res, auth);
    await handler(req, res, { client: auth.client, deps });
  });
  router.all('/api/oauth/token', methodNotAllowed(['POST']));
  return router;
}
