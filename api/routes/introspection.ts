// Token introspection (RFC 7662) and revocation (RFC 7009). A client learns
// about, and revokes, only tokens issued to itself.
import express, { Router, type Request, type Response } from 'express';
import { verifyOwnJwt } from '../../lib/keys/verifier.js';
import { hashSecret } from '../../lib/security/secrets.js';
import { findGrant, isGrantUsable, revokeAccessToken } from '../../lib/store/grants.js';
import { findRefreshToken, type RefreshTokenDoc } from '../../lib/store/refresh-tokens.js';
import { methodNotAllowed } from '../http/errors.js';
import { verifyAccessToken } from '../oauth/bearer.js';
import { authenticateClient, sendClientAuthError } from '../oauth/client-auth.js';
import { sendOAuthError, sendOAuthJson } from '../oauth/errors.js';
import { revokeFamilyThenGrant } from '../../lib/grants/revocation.js';
import { fieldsOf, raw } from '../http/input.js';
import type { ApiContext } from '../context.js';

export type IntrospectionDeps = Pick<ApiContext, 'issuer' | 'keyring' | 'store' | 'findClient' | 'flows' | 'log' | 'clientAssertions'>;

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** Refresh token projection, if it is usable now (its grant too, and its client and user still exist). */
async function activeRefreshToken(deps: IntrospectionDeps, token: string): Promise<RefreshTokenDoc | null> {
  const doc = await findRefreshToken(deps.store, hashSecret(token));
  if (!doc || doc.status !== 'current' || doc.expiresAt <= new Date()) return null;
  return (await isGrantUsable(deps.store, { grantId: doc.grantId, clientId: doc.clientId, userId: doc.userId })) ? doc : null;
}

/** The token and its hint; a token that is not one string is refused as missing. */
const IntrospectionRequest = fieldsOf({ token: raw, token_type_hint: raw });

function tokenParams(req: Request, res: Response): { token: string; hint: string | undefined } | null {
  const body = IntrospectionRequest.parse(req.body);
  if (typeof body.token !== 'string' || body.token.length === 0 || body.token.length > 16_384) {
    sendOAuthError(res, 400, 'invalid_request', 'token is required');
    return null;
  }
  const hint = typeof body.token_type_hint === 'string' ? body.token_type_hint : undefined;
  return { token: body.token, hint };
}

export function introspectionRoutes(deps: IntrospectionDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '32kb' });

  router.post('/api/oauth/introspect', form, async (req, res) => {
    const auth = await authenticateClient(deps.findClient, req, deps.clientAssertions);
    if (!auth.ok) return sendClientAuthError(res, auth);
    const params = tokenParams(req, res);
    if (!params) return;
    const clientId = auth.client._id;

    const asAccess = async () => {
      // Any audience: the client asks about its own token, wherever it is meant to be used.
      const access = await verifyAccessToken(deps, params.token);
      if (!access || access.clientId !== clientId) return null;
      const c = access.claims;
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
      const doc = await activeRefreshToken(deps, params.token);
      if (!doc || doc.clientId !== clientId) return null;
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
      if (result) return sendOAuthJson(res, 200, result);
    }
    sendOAuthJson(res, 200, { active: false });
  });
  router.all('/api/oauth/introspect', methodNotAllowed(['POST']));

  router.post('/api/oauth/revoke', form, async (req, res) => {
    const auth = await authenticateClient(deps.findClient, req, deps.clientAssertions);
    if (!auth.ok) return sendClientAuthError(res, auth);
    const params = tokenParams(req, res);
    if (!params) return;
    const clientId = auth.client._id;

    const revokeAsAccess = async () => {
      const jwt = await verifyOwnJwt(deps.keyring, params.token);
      const c = jwt?.claims;
      if (!jwt || jwt.header.typ !== 'at+jwt' || typeof c?.grant_id !== 'string' || typeof c.jti !== 'string') return false;
      if (c.client_id === clientId) await revokeAccessToken(deps.store, c.grant_id, c.jti);
      return true;
    };
    const revokeAsRefresh = async () => {
      const doc = await findRefreshToken(deps.store, hashSecret(params.token));
      if (!doc) return false;
      if (doc.clientId !== clientId || doc.status === 'revoked' || doc.status === 'expired') return true;
      // RFC 7009 §2.1: revoking a refresh token revokes its grant; a superseded one shows reuse.
      await revokeFamilyThenGrant(
        deps,
        doc.grantId,
        doc.status === 'superseded' ? 'superseded refresh token presented for revocation' : 'refresh token revoked',
      );
      deps.log.info('grant revoked', { client: clientId, grant: doc.grantId });
      return true;
    };
    const order = params.hint === 'access_token' ? [revokeAsAccess, revokeAsRefresh] : [revokeAsRefresh, revokeAsAccess];
    for (const attempt of order) if (await attempt()) break;
    // Unknown tokens, and tokens of other clients, are answered alike (RFC 7009 §2.2).
    res.status(200).set({ 'Cache-Control': 'no-store' }).end();
  });
  router.all('/api/oauth/revoke', methodNotAllowed(['POST']));
  return router;
}
