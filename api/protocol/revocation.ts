// POST /api/oauth/revoke: token revocation (RFC 7009). A client revokes only
// tokens issued to itself; any other token is answered as if revoked.
import express, { Router } from 'express';
import { verifyOwnJwt } from '../../lib/keys/verifier.js';
import { hashSecret } from '../../lib/security/secrets.js';
import { revokeAccessToken } from '../../lib/store/grants.js';
import { findRefreshToken } from '../../lib/store/refresh-tokens.js';
import { findRotation } from '../../lib/store/refresh-rotations.js';
import { revokeFamilyThenGrant } from '../../lib/grants/revocation.js';
import { clientActor, grantSubject } from '../../lib/grants/token-audit.js';
import { methodNotAllowed } from '../http/errors.js';
import { authenticateClient, sendClientAuthError } from './shared/client-auth.js';
import { tokenParams } from './shared/token-and-hint.js';
import type { ApiContext } from '../context.js';
import { ENDPOINTS } from '../paths.js';

export type RevocationDeps = Pick<ApiContext, 'keyring' | 'store' | 'findClient' | 'flows' | 'log' | 'clientAssertions' | 'audit'>;

export function revocationRoutes(deps: RevocationDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '32kb' });

  router.post(ENDPOINTS.revocation, form, async (req, res) => {
    const auth = await authenticateClient(deps.findClient, req, deps.clientAssertions);
    if (!auth.ok) return sendClientAuthError(res, auth);
    const params = tokenParams(req, res);
    if (!params) return;
    const clientId = auth.client._id;
    // Only a token of this client's that was revoked is recorded (the others are answered alike, and nothing happened to them).
    const revoked = (tokenType: 'access_token' | 'refresh_token', grantId: string, userId: string) =>
      deps.audit.record('token.revoked', {
        actor: clientActor(clientId),
        // A client's own token (client_credentials) has the client as its subject.
        subject: grantSubject(clientId, userId === clientId ? null : userId),
        data: { client_id: clientId, grant_id: grantId, token_type: tokenType, by: 'client' },
      });

    const revokeAsAccess = async () => {
      const jwt = await verifyOwnJwt(deps.keyring, params.token);
      const c = jwt?.claims;
      if (!jwt || jwt.header.typ !== 'at+jwt' || typeof c?.grant_id !== 'string' || typeof c.jti !== 'string') return false;
      if (c.client_id === clientId) {
        await revokeAccessToken(deps.store, c.grant_id, c.jti);
        await revoked('access_token', c.grant_id, typeof c.sub === 'string' ? c.sub : clientId);
      }
      return true;
    };
    const revokeAsRefresh = async () => {
      const doc = await findRefreshToken(deps.store, hashSecret(params.token));
      if (!doc) return false;
      if (doc.clientId !== clientId) return true;
      // RFC 7009 §2.1: revoking a refresh token revokes its grant; a superseded one shows reuse.
      const superseded = (await findRotation(deps.store, doc._id)) !== null;
      await revokeFamilyThenGrant(deps, doc.grantId, superseded ? 'superseded refresh token presented for revocation' : 'refresh token revoked');
      deps.log.info('grant revoked', { client: clientId, grant: doc.grantId });
      await revoked('refresh_token', doc.grantId, doc.userId);
      return true;
    };
    const order = params.hint === 'access_token' ? [revokeAsAccess, revokeAsRefresh] : [revokeAsRefresh, revokeAsAccess];
    for (const attempt of order) if (await attempt()) break;
    // Unknown tokens, and tokens of other clients, are answered alike (RFC 7009 §2.2).
    res.status(200).set({ 'Cache-Control': 'no-store' }).end();
  });
  router.all(ENDPOINTS.revocation, methodNotAllowed(['POST']));
  return router;
}
