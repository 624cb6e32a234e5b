// grant_type=client_credentials (RFC 6749 §4.4): a confidential client gets an
// access token for itself, not for a user, at the resources and with the
// scopes an operator allowed it (machine access: lib/model/machine-access.ts).
// The token is an RFC 9068 JWT whose `sub` is the client (§2.2), without
// authentication claims; it is DPoP-bound when a proof comes with the request,
// never refreshable, and under a grant of its own (revocable one by one, and
// with the client). Each request takes a slot of the client's request limit
// (REQUEST_LIMIT_PER_CLIENT per minute) and is audited (`token.issued`).
import type { Request, Response } from 'express';
import { machineRequest } from '../../../lib/model/machine-access.js';
import { issueAccessToken } from '../../../lib/grants/tokens.js';
import { noteTokenIssued } from '../../../lib/grants/token-audit.js';
import { newId } from '../../../lib/security/secrets.js';
import { openGrant } from '../../../lib/store/grants.js';
import { admitClient } from '../../http/request-limits.js';
import { sendOAuthError, sendOAuthJson } from '../shared/errors.js';
import type { GrantContext } from './context.js';

export const CLIENT_CREDENTIALS_GRANT = 'client_credentials';

export async function clientCredentialsGrant(_req: Request, res: Response, { client, deps, dpopJkt, params }: GrantContext): Promise<void> {
  // Only a client that authenticated with a credential of its own acts for itself (RFC 6749 §4.4).
  if (client.public) return sendOAuthError(res, 400, 'unauthorized_client', 'client_credentials needs a confidential client');
  const access = client.machineAccess ?? [];
  if (access.length === 0)
    return sendOAuthError(res, 400, 'unauthorized_client', 'an operator has not allowed this application any resource for client_credentials (machine access)');
  if (!(await admitClient(deps, res, 'client_credentials', client._id))) return;
  const asked = machineRequest(access, params.resource, params.fields.scope);
  if (!asked.ok) return sendOAuthError(res, 400, asked.error, asked.description);

  const grantId = newId();
  await openGrant(deps.store, { _id: grantId, clientId: client._id, userId: client._id, scope: asked.scope, sid: null, machine: true });
  const token = await issueAccessToken(deps, { client, userId: client._id, scope: asked.scope, grantId, jkt: dpopJkt, resources: asked.resources });
  noteTokenIssued(deps.audit, {
    clientId: client._id,
    userId: null,
    grantId,
    grantType: CLIENT_CREDENTIALS_GRANT,
    scope: asked.scope,
    resources: asked.resources,
    jkt: dpopJkt,
    refreshToken: false,
  });
  // Never refreshable: no refresh_token (RFC 6749 §4.4.3).
  sendOAuthJson(res, 200, token);
}
