// Dynamic client registration (RFC 7591) and its management protocol (RFC 7592).
// POST /api/oauth/register needs an initial access token: a Bearer access
// token or personal access token of the user carrying `apps:write` (a browser
// session cookie alone is not accepted). The client belongs to that user. The
// registration_client_uri answers GET / PUT / DELETE to the registration access
// token returned once at registration (stored as a SHA-256 hash).
import express, { Router, type Request, type Response } from 'express';
import { clientInformation, registrationToClient } from '../../lib/model/client-metadata.js';
import { ValidationError } from '../../lib/model/errors.js';
import { hashSecret, newSecret, verifySecret } from '../../lib/security/secrets.js';
import { isClientActive, type ClientDoc } from '../../lib/model/clients.js';
import { findClient } from '../../lib/store/clients.js';
import { createApp, deleteApp, updateApp } from '../../lib/accounts/app-lifecycle.js';
import { methodNotAllowed, sendError } from '../http/errors.js';
import { requireAccessToken } from './shared/bearer.js';
import type { EventActor } from '../../lib/model/webhook-events.js';
import { tokenActor } from '../../lib/webhooks/event-sources.js';
import { AllFields } from '../http/input.js';
import type { ApiContext } from '../context.js';
import { ENDPOINTS } from '../paths.js';

/** `events`: app.* events of clients that have an owner user go to the owner's webhooks. */
export interface RegistrationDeps extends Pick<ApiContext, 'issuer' | 'keyring' | 'store' | 'flows' | 'events' | 'audit' | 'config'> {
  /** Grant types Keyflow serves (the token endpoint's, and `implicit`): the only ones a client may register. */
  grantTypes: readonly string[];
}

/**
 * The actor of an RFC 7592 request: made with the client's registration access
 * token, i.e. by the client itself on behalf of its owner.
 */
const registrationActor = (client: ClientDoc): EventActor => ({ type: 'user', userId: client.ownerUserId ?? undefined, clientId: client._id });

// A hash no token has, compared against when the client does not exist, so the
// answer takes the same time and says the same thing either way.
const NO_CLIENT_HASH = hashSecret('no such client');

export function registrationRoutes(deps: RegistrationDeps): Router {
  const router = Router();
  const json = express.json({ limit: '64kb' });
  const base = `${deps.issuer}${ENDPOINTS.registration}`;
  const clientUri = (id: string) => `${base}/${encodeURIComponent(id)}`;

  function sendDocument(res: Response, status: number, client: ClientDoc, once: { clientSecret?: string | null; registrationToken?: string } = {}) {
    const doc: Record<string, unknown> = { ...clientInformation(client), registration_client_uri: clientUri(client._id) };
    if (once.clientSecret) doc.client_secret = once.clientSecret;
    if (once.registrationToken) doc.registration_access_token = once.registrationToken;
    res.status(status).set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).json(doc);
  }

  function requireJson(req: Request, res: Response): boolean {
    if (req.is('application/json')) return true;
    sendError(res, 400, 'invalid_client_metadata', 'the body must be application/json');
    return false;
  }

  router.post(ENDPOINTS.registration, requireAccessToken(deps, ['apps:write']), json, async (req, res) => {
    if (!requireJson(req, res)) return;
    const mapped = registrationToClient(
      req.body,
      req.access!.userId,
      deps.grantTypes,
      deps.config.idTokenAlgs,
      deps.config.registrationRequirePkce,
      deps.config.fapiProfileDefault,
    );
    if (!mapped.ok) return sendError(res, 400, mapped.error, mapped.description);
    const registrationToken = newSecret();
    // The initial access token's user owns the client.
    const { client, clientSecret } = await createApp(deps, mapped.input, tokenActor(req), 'registration', {
      ...mapped.extras,
      registrationTokenHash: hashSecret(registrationToken),
    });
    res.set('Location', clientUri(client._id));
    sendDocument(res, 201, client, { clientSecret, registrationToken });
  });
  router.all(ENDPOINTS.registration, methodNotAllowed(['POST']));

  /** The client of the registration_client_uri when the request carries its registration access token; else a 401 is sent. */
  async function authorizedClient(req: Request, res: Response): Promise<ClientDoc | null> {
    const m = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(req.get('authorization') ?? '');
    const id = String(req.params.clientId ?? '');
    const client = m && id.length <= 200 ? await findClient(deps.store, id) : null;
    // A deactivated client cannot manage its registration either (a site admin's decision, not the client's).
    const ok = verifySecret(m?.[1] ?? '', client?.registrationTokenHash ?? NO_CLIENT_HASH) && client !== null && isClientActive(client);
    if (ok) return client;
    sendError(res, 401, 'invalid_token', 'a valid registration access token for this client is required', {
      'WWW-Authenticate': m ? 'Bearer error="invalid_token"' : 'Bearer',
    });
    return null;
  }

  const managed = `${ENDPOINTS.registration}/:clientId`;
  router.get(managed, async (req, res) => {
    const client = await authorizedClient(req, res);
    if (client) sendDocument(res, 200, client);
  });

  router.put(managed, json, async (req, res) => {
    const client = await authorizedClient(req, res);
    if (!client || !requireJson(req, res)) return;
    const body = AllFields.parse(req.body);
    // RFC 7592 §2.2: the client_id must be sent and match; the secret cannot be changed by the client.
    if (body.client_id !== client._id) return sendError(res, 400, 'invalid_request', 'client_id must be present and match the client');
    if (
      body.client_secret !== undefined &&
      (typeof body.client_secret !== 'string' || !client.secretHash || !verifySecret(body.client_secret, client.secretHash))
    ) {
      return sendError(res, 400, 'invalid_client_metadata', 'client_secret cannot be changed by the client');
    }
    const mapped = registrationToClient(
      body,
      client.ownerUserId ?? '',
      deps.grantTypes,
      deps.config.idTokenAlgs,
      deps.config.registrationRequirePkce,
      deps.config.fapiProfileDefault,
    );
    if (!mapped.ok) return sendError(res, 400, mapped.error, mapped.description);
    try {
      // Fields RFC 7591 has no name for (set through the app API or by operators) are kept, as are wildcard and regex redirect URIs.
      const kept = {
        ownerUserId: client.ownerUserId,
        isVerified: client.isVerified,
        description: client.description,
        oidcFields: client.oidcFields,
        redirectUris: [...(mapped.input.redirectUris ?? []), ...client.redirectUris.filter((r) => r.type !== 'equals')],
      };
      const updated = await updateApp(deps, client, { ...mapped.input, ...kept }, registrationActor(client), mapped.extras);
      if (!updated)
        return sendError(res, 401, 'invalid_token', 'a valid registration access token for this client is required', {
          'WWW-Authenticate': 'Bearer error="invalid_token"',
        });
      sendDocument(res, 200, updated.client, { clientSecret: updated.clientSecret });
    } catch (err) {
      if (err instanceof ValidationError) return sendError(res, 400, 'invalid_client_metadata', err.message);
      throw err;
    }
  });

  router.delete(managed, async (req, res) => {
    const client = await authorizedClient(req, res);
    if (!client) return;
    await deleteApp(deps, client, registrationActor(client));
    res.status(204).set('Cache-Control', 'no-store').end();
  });
  router.all(managed, methodNotAllowed(['GET', 'PUT', 'DELETE']));
  return router;
}
