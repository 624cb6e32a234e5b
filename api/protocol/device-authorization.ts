// POST /api/oauth/device_authorization (RFC 8628 §3.1-3.2): a client without
// a browser (TV, CLI) gets a device_code to poll the token endpoint with and a
// user code for the person to enter at /device. One Temporal call: the start
// of the DeviceAuthorization workflow. Limited per client address and per
// client (REQUEST_LIMIT_PER_IP, REQUEST_LIMIT_PER_CLIENT per minute).
import express, { Router } from 'express';
import { mayUseGrant } from '../../lib/model/fapi2.js';
import { challengeProblem } from '../../lib/model/pkce.js';
import { parseAllowedResources } from '../../lib/model/resources.js';
import { isKnownScope, isSiteScope, isTeamScope, parseScopeParam } from '../../lib/model/scopes.js';
import { formatUserCode } from '../../lib/model/user-code.js';
import { startDeviceFlow } from '../../lib/flows/device-authorization.js';
import { hashSecret, newSecret } from '../../lib/security/secrets.js';
import { createDeviceAuthorization, deleteDeviceAuthorization } from '../../lib/store/device-codes.js';
import { methodNotAllowed } from '../http/errors.js';
import { admitClient, limitPerIp } from '../http/request-limits.js';
import { authenticateClient, sendClientAuthError } from './shared/client-auth.js';
import { sendOAuthError, sendOAuthJson } from './shared/errors.js';
import { FormValues } from '../http/input.js';
import type { ApiContext } from '../context.js';
import { ENDPOINTS, PAGES } from '../paths.js';
import { DEVICE_CODE_GRANT } from './token/device-code.js';
import { currentTimeMs } from '../../lib/runtime/clock.js';

export interface DeviceFlowDeps extends Pick<ApiContext, 'issuer' | 'store' | 'findClient' | 'clientAssertions' | 'log' | 'flows' | 'limits'> {
  deviceCodeTtlMs: number;
}

/** Seconds between polls the client starts with (RFC 8628 §3.2 default). */
export const DEVICE_POLL_INTERVAL_SECONDS = 5;

type Checked = { ok: true; scope: string[]; codeChallenge: string | null } | { ok: false; error: string; description: string };

/** The request's scope and PKCE parameters, checked like the authorization endpoint's. */
function checkParams(body: Record<string, unknown>, allowedScopes: readonly string[]): Checked {
  const fail = (error: string, description: string): Checked => ({ ok: false, error, description });
  const scope = parseScopeParam(typeof body.scope === 'string' ? body.scope : '');
  if (scope.length === 0) return fail('invalid_scope', 'scope is required');
  const unknown = scope.find((s) => !isKnownScope(s));
  if (unknown) return fail('invalid_scope', `unknown scope: ${unknown}`);
  const notAllowed = scope.find((s) => !allowedScopes.includes(s));
  if (notAllowed) return fail('invalid_scope', `this application may not request the scope ${notAllowed}`);
  // Site and team scopes (every tier) cannot be granted through the device flow (their consent needs more than a second screen).
  const refused = scope.find((s) => isSiteScope(s) || isTeamScope(s));
  if (refused) return fail('invalid_scope', `the scope ${refused} cannot be granted through the device flow`);

  const challenge = body.code_challenge;
  const pkce = challengeProblem(challenge, body.code_challenge_method);
  if (pkce) return fail('invalid_request', pkce);
  return { ok: true, scope, codeChallenge: typeof challenge === 'string' ? challenge : null };
}

export function deviceAuthorizationRoutes(deps: DeviceFlowDeps): Router {
  const router = Router();
  // Anyone may call this (public clients authenticate with client_id alone): per address and per client, before anything is created.
  router.post(
    ENDPOINTS.deviceAuthorization,
    limitPerIp(deps, 'device_authorization'),
    express.urlencoded({ extended: false, limit: '64kb' }),
    async (req, res) => {
      if (!req.is('application/x-www-form-urlencoded')) {
        return sendOAuthError(res, 400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
      }
      const form = FormValues.safeParse(req.body);
      if (!form.success) return sendOAuthError(res, 400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
      const body = form.data;
      for (const [k, v] of Object.entries(body)) {
        if (typeof v !== 'string' && !(k === 'resource' && Array.isArray(v))) return sendOAuthError(res, 400, 'invalid_request', `${k} must appear once`);
      }
      const auth = await authenticateClient(deps.findClient, req, deps.clientAssertions);
      if (!auth.ok) return sendClientAuthError(res, auth);
      const client = auth.client;
      if (!(await admitClient(deps, res, 'device_authorization', client._id))) return;
      if (!mayUseGrant(client, DEVICE_CODE_GRANT))
        return sendOAuthError(res, 400, 'unauthorized_client', 'a FAPI 2.0 client authorizes through pushed authorization requests, not the device flow');
      const checked = checkParams(body, client.allowedScopes);
      if (!checked.ok) return sendOAuthError(res, 400, checked.error, checked.description);
      // RFC 8707 resource indicators (repeatable): kept with the code, added to the tokens' aud.
      const resources = parseAllowedResources(body.resource, client.allowedResources ?? []);
      if (!resources.ok) return sendOAuthError(res, 400, resources.error, resources.description);

      const deviceCode = newSecret();
      const deviceCodeHash = hashSecret(deviceCode);
      const expiresAt = currentTimeMs() + deps.deviceCodeTtlMs;
      const userCodeKey = await createDeviceAuthorization(deps.store, {
        deviceCodeHash,
        clientId: client._id,
        scope: checked.scope,
        codeChallenge: checked.codeChallenge,
        resources: resources.resources,
        interval: DEVICE_POLL_INTERVAL_SECONDS,
        expiresAt: new Date(expiresAt),
      });
      try {
        await startDeviceFlow(deps.flows, { deviceCodeHash, clientId: client._id, expiresAt });
      } catch (err) {
        // Without its workflow the code could never be approved: it must not exist.
        await deleteDeviceAuthorization(deps.store, deviceCodeHash, userCodeKey, client._id);
        throw err;
      }
      const userCode = formatUserCode(userCodeKey);
      sendOAuthJson(res, 200, {
        device_code: deviceCode,
        user_code: userCode,
        verification_uri: `${deps.issuer}${PAGES.device}`,
        verification_uri_complete: `${deps.issuer}${PAGES.device}?user_code=${userCode}`,
        expires_in: Math.round(deps.deviceCodeTtlMs / 1000),
        interval: DEVICE_POLL_INTERVAL_SECONDS,
      });
    },
  );
  router.all(ENDPOINTS.deviceAuthorization, methodNotAllowed(['POST']));
  return router;
}
