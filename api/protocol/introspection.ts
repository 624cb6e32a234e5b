// POST /api/oauth/introspect: token introspection (RFC 7662). A client learns
// only about tokens issued to itself; revocation, its sibling, is revocation.ts.
// A caller that asks for `application/token-introspection+jwt` (RFC 9701) gets
// the same answer as a JWT Keyflow signs, so that a resource server can keep
// it as evidence or receive it through an intermediary.
import express, { Router, type Request, type Response } from 'express';
import type { ClientDoc } from '../../lib/model/clients.js';
import { defaultSignedResponseAlg } from '../../lib/model/fapi2.js';
import { hashSecret } from '../../lib/security/secrets.js';
import { findGrant, isGrantLive } from '../../lib/store/grants.js';
import { findRefreshToken } from '../../lib/store/refresh-tokens.js';
import type { RefreshTokenDoc } from '../../lib/model/refresh-family.js';
import { isUnrotated } from '../../lib/store/refresh-rotations.js';
import { methodNotAllowed } from '../http/errors.js';
import { liveAccessTokenClaims } from './shared/bearer.js';
import { authenticateClient, sendClientAuthError } from './shared/client-auth.js';
import { sendOAuthJson } from './shared/errors.js';
import { tokenParams } from './shared/token-and-hint.js';
import type { ApiContext } from '../context.js';
import { ENDPOINTS } from '../paths.js';
import { currentDate, currentTimeMs } from '../../lib/runtime/clock.js';

export type IntrospectionDeps = Pick<ApiContext, 'issuer' | 'keyring' | 'signer' | 'store' | 'findClient' | 'userActive' | 'clientAssertions'>;

/** RFC 9701 §4: the media type (and §5 the JWT `typ`) of a signed introspection response. */
const INTROSPECTION_JWT = 'application/token-introspection+jwt';

/**
 * Sends the introspection `result`: JSON, or the signed JWT when the caller
 * prefers it by its Accept header (a plain `*\/*` or none keeps JSON). The
 * JWT carries the response under `token_introspection` (RFC 9701 §5), never
 * at the top level, so that it cannot pass for an access token.
 */
async function sendIntrospection(deps: IntrospectionDeps, req: Request, res: Response, client: ClientDoc, result: Record<string, unknown>): Promise<void> {
  if (req.accepts(['application/json', INTROSPECTION_JWT]) !== INTROSPECTION_JWT) return sendOAuthJson(res, 200, result);
  const claims = { iss: deps.issuer, aud: client._id, iat: Math.floor(currentTimeMs() / 1000), token_introspection: result };
  const alg = client.introspectionSignedResponseAlg ?? defaultSignedResponseAlg(client);
  const jwt = await deps.signer.sign(claims, { alg, typ: 'token-introspection+jwt', client });
  // A Buffer, so that Express adds no charset to the media type.
  res.status(200).set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).type(INTROSPECTION_JWT).send(Buffer.from(jwt));
}

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** The calling client's refresh token, if it is usable now (never rotated, its grant live, its user still there). */
async function activeRefreshToken(deps: IntrospectionDeps, token: string, clientId: string): Promise<RefreshTokenDoc | null> {
  const doc = await findRefreshToken(deps.store, hashSecret(token));
  if (!doc || doc.clientId !== clientId || !(await isUnrotated(deps.store, doc, currentDate()))) return null;
  // The token's client is the caller, which just authenticated (an active client): not read again.
  return (await isGrantLive(deps.store, { grantId: doc.grantId, clientId: doc.clientId, userId: doc.userId }, deps.userActive)) ? doc : null;
}

export function introspectionRoutes(deps: IntrospectionDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '32kb' });

  router.post(ENDPOINTS.introspection, form, async (req, res) => {
    const auth = await authenticateClient(deps.findClient, req, deps.clientAssertions);
    if (!auth.ok) return sendClientAuthError(res, auth);
    const params = tokenParams(req, res);
    if (!params) return;
    const clientId = auth.client._id;

    const asAccess = async () => {
      // Any audience: the client asks about its own token, wherever it is meant to be used.
      const c = await liveAccessTokenClaims(deps, params.token, clientId);
      if (!c) return null;
      // A DPoP-bound token (RFC 9449 §6.2): token_type DPoP and its cnf.
      const bound = typeof (c.cnf as { jkt?: unknown } | undefined)?.jkt === 'string';
      return {
        active: true,
        sub: c.sub,
        scope: c.scope,
        client_id: c.client_id,
        token_type: bound ? 'DPoP' : 'Bearer',
        ...(bound ? { cnf: c.cnf } : {}),
        exp: c.exp,
        iat: c.iat,
        aud: c.aud,
        iss: c.iss,
        jti: c.jti,
        acr: c.acr,
        auth_time: c.auth_time,
        amr: c.amr,
      };
    };
    const asRefresh = async () => {
      const doc = await activeRefreshToken(deps, params.token, clientId);
      if (!doc) return null;
      const grant = await findGrant(deps.store, doc.grantId);
      return {
        active: true,
        sub: doc.userId,
        scope: doc.scope.join(' '),
        client_id: doc.clientId,
        token_type: 'refresh_token',
        exp: seconds(doc.expiresAt),
        iat: seconds(doc.issuedAt),
        aud: doc.clientId,
        iss: deps.issuer,
        ...(grant?.acr ? { acr: grant.acr } : {}),
        ...(grant?.authTime ? { auth_time: seconds(grant.authTime) } : {}),
        ...(grant?.amr ? { amr: grant.amr } : {}),
      };
    };
    // The hint chooses the order; it is never trusted to decide the type.
    const order = params.hint === 'refresh_token' ? [asRefresh, asAccess] : [asAccess, asRefresh];
    for (const check of order) {
      const result = await check();
      if (result) return sendIntrospection(deps, req, res, auth.client, result);
    }
    await sendIntrospection(deps, req, res, auth.client, { active: false });
  });
  router.all(ENDPOINTS.introspection, methodNotAllowed(['POST']));
  return router;
}
