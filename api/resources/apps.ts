// The app API: the user's own applications at /api/oauth/me/apps.
// `apps:read` lists and reads; `apps:write` creates, changes, deletes and
// rotates secrets. Only apps whose owner is the token's user exist here
// (another user's app is 404). A secret is shown once: on create and rotate.
import express, { Router, type Request, type Response } from 'express';
import { appJson, appToClient, sensitiveChanges } from '../../lib/model/client-metadata.js';
import { ValidationError } from '../../lib/model/errors.js';
import { signingNotes } from '../../lib/model/algorithm-notes.js';
import type { ClientDoc } from '../../lib/model/clients.js';
import { findClient, listClientsByOwner } from '../../lib/store/clients.js';
import { createApp, deleteApp, rotateAppSecret, updateApp } from '../../lib/accounts/app-lifecycle.js';
import { methodNotAllowed, sendError } from '../http/errors.js';
import { requireAccessToken } from '../protocol/shared/bearer.js';
import { sendStepUpChallenge, stepUpShortfall, type StepUpRequirement } from '../protocol/shared/acr-signalling.js';
import { tokenActor } from '../../lib/webhooks/event-sources.js';
import type { ApiContext } from '../context.js';
import { RESOURCES } from '../paths.js';

const BASE = RESOURCES.apps;

/** `events`: app.created / app.updated / app.deleted go to the owner's webhooks. */
export type AppsApiDeps = Pick<ApiContext, 'issuer' | 'keyring' | 'store' | 'flows' | 'events' | 'audit' | 'reauthMaxAgeMs' | 'config'>;

export function appsApiRoutes(deps: AppsApiDeps): Router {
  const router = Router();
  const json = express.json({ limit: '64kb' });
  const read = requireAccessToken(deps, ['apps:read']);
  const write = requireAccessToken(deps, ['apps:write']);

  const send = (res: Response, status: number, body: unknown) => res.status(status).set('Cache-Control', 'no-store').json(body);
  /**
   * A new secret, new redirect URIs, keys or auth method hand over the app:
   * only a recent two-factor sign-in may make such a change (RFC 9470). A
   * personal access token carries no acr and never qualifies.
   */
  const credentialsStepUp: StepUpRequirement = { acr: 'mfa', maxAge: Math.floor(deps.reauthMaxAgeMs / 1000) };
  function steppedUp(req: Request, res: Response): boolean {
    const shortfall = stepUpShortfall(req, credentialsStepUp);
    if (shortfall) sendStepUpChallenge(res, deps.issuer, credentialsStepUp, shortfall);
    return !shortfall;
  }

  /** The token user's app named in the path, or a 404 (also for another user's app). */
  async function ownApp(req: Request, res: Response): Promise<ClientDoc | null> {
    const id = String(req.params.clientId ?? '');
    const client = id.length <= 200 ? await findClient(deps.store, id) : null;
    if (client && client.ownerUserId !== null && client.ownerUserId === req.access!.userId) return client;
    sendError(res, 404, 'not_found', 'no such app');
    return null;
  }

  function jsonBody(req: Request, res: Response): unknown {
    if (req.is('application/json')) return req.body;
    sendError(res, 400, 'invalid_request', 'the body must be application/json');
    return undefined;
  }

  router.get(BASE, read, async (req, res) => {
    const apps = await listClientsByOwner(deps.store, req.access!.userId);
    send(res, 200, { apps: apps.map(appJson) });
  });

  router.post(BASE, write, json, async (req, res) => {
    const body = jsonBody(req, res);
    if (body === undefined) return;
    const mapped = appToClient(body, req.access!.userId, deps.config.idTokenAlgs, undefined, deps.config.fapiProfileDefault);
    if (!mapped.ok) return sendError(res, 400, mapped.error, mapped.description);
    try {
      const { client, clientSecret } = await createApp(deps, mapped.input, tokenActor(req), 'api');
      res.set('Location', `${deps.issuer}${BASE}/${encodeURIComponent(client._id)}`);
      // What the app's algorithms mean for its relying party, and the field that changes them.
      const notes = signingNotes(client.idTokenSignedResponseAlg, 'api');
      send(res, 201, { ...appJson(client), ...(clientSecret ? { client_secret: clientSecret } : {}), ...(notes.length ? { notes } : {}) });
    } catch (err) {
      if (err instanceof ValidationError) return sendError(res, 400, 'invalid_request', err.message);
      throw err;
    }
  });
  router.all(BASE, methodNotAllowed(['GET', 'POST']));

  const one = `${BASE}/:clientId`;
  router.get(one, read, async (req, res) => {
    const client = await ownApp(req, res);
    if (client) send(res, 200, appJson(client));
  });

  router.patch(one, write, json, async (req, res) => {
    const client = await ownApp(req, res);
    if (!client) return;
    const body = jsonBody(req, res);
    if (body === undefined) return;
    const mapped = appToClient(body, req.access!.userId, deps.config.idTokenAlgs, client);
    if (!mapped.ok) return sendError(res, 400, mapped.error, mapped.description);
    if (sensitiveChanges(client, mapped.input).length > 0 && !steppedUp(req, res)) return;
    try {
      const updated = await updateApp(deps, client, mapped.input, tokenActor(req));
      if (!updated) return sendError(res, 404, 'not_found', 'no such app');
      // A client that starts using a secret gets one, shown this once.
      send(res, 200, { ...appJson(updated.client), ...(updated.clientSecret ? { client_secret: updated.clientSecret } : {}) });
    } catch (err) {
      if (err instanceof ValidationError) return sendError(res, 400, 'invalid_request', err.message);
      throw err;
    }
  });

  router.delete(one, write, async (req, res) => {
    const client = await ownApp(req, res);
    if (!client) return;
    await deleteApp(deps, client, tokenActor(req));
    res.status(204).set('Cache-Control', 'no-store').end();
  });
  router.all(one, methodNotAllowed(['GET', 'PATCH', 'DELETE']));

  router.post(`${one}/secret`, write, async (req, res) => {
    const client = await ownApp(req, res);
    if (!client) return;
    if (!steppedUp(req, res)) return;
    const clientSecret = await rotateAppSecret(deps, client, tokenActor(req));
    if (!clientSecret) return sendError(res, 400, 'invalid_request', 'this app does not use a client secret');
    send(res, 200, { client_id: client._id, client_secret: clientSecret });
  });
  router.all(`${one}/secret`, methodNotAllowed(['POST']));
  return router;
}
