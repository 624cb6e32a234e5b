// POST /api/oauth/2fa/sudo/revoke: the user ends the sudo window of one client.
// The "user session token" a client sends is a Keyflow access token of the user (any
// scope, Bearer or DPoP) whose `sid` claim names the browser session the
// window is bound to; the window of (token's user, token's sid, client_id) ends.
import express, { Router } from 'express';
import { z } from 'zod';
import { revokeSudoWindow, type SudoDeps } from '../../lib/step-up/sudo-windows.js';
import { methodNotAllowed, sendError } from '../http/errors.js';
import { requireAccessToken, type BearerDeps } from './shared/bearer.js';
import { STEP_UP_PATHS } from '../paths.js';

const RevokeBody = z.object({ client_id: z.string().min(1).max(256) });

export function sudoRoutes(deps: BearerDeps & SudoDeps): Router {
  const router = Router();
  router.post(STEP_UP_PATHS.sudoRevoke, express.json({ limit: '16kb' }), requireAccessToken(deps, []), async (req, res) => {
    const sid = req.access!.claims.sid;
    if (typeof sid !== 'string' || !sid) {
      return sendError(res, 401, 'invalid_token', 'the access token is not bound to a browser session (no sid claim)', {
        'WWW-Authenticate': 'Bearer error="invalid_token"',
      });
    }
    const body = RevokeBody.safeParse(req.body);
    if (!body.success) return sendError(res, 400, 'invalid_request', 'the body must be JSON {"client_id": "<client id>"}');
    const revoked = await revokeSudoWindow(deps, { userId: req.access!.userId, sid, clientId: body.data.client_id });
    res.set('Cache-Control', 'no-store').json({ revoked });
  });
  router.all(STEP_UP_PATHS.sudoRevoke, methodNotAllowed(['POST']));
  return router;
}
