// An OAuth access token minted straight into a grant, without a consent: any
// scope, whatever the user's role. For resource-server tests whose point is
// that the API itself refuses (a non-admin holding admin scopes, a demoted
// admin), which a real consent would never hand out.
import type { ApiUnderTest } from './harness.js';
import { issueAccessToken } from '../../lib/grants/tokens.js';
import type { ClientDoc } from '../../lib/model/clients.js';
import { newId } from '../../lib/security/secrets.js';
import { createClient } from '../../lib/store/clients.js';
import { openGrant } from '../../lib/store/grants.js';

/** A token of `client` (a fresh RS256 client when none is given) for `userId` with `scope`. */
export async function mintAccessToken(api: ApiUnderTest, userId: string, scope: string[], client?: ClientDoc): Promise<string> {
  const holder =
    client ??
    (
      await createClient(api.deps.store, {
        name: 'Minted token holder',
        redirectUris: [{ type: 'equals', value: 'https://minted-token.example/cb' }],
        allowedScopes: ['openid'],
        idTokenSignedResponseAlg: 'RS256',
      })
    ).client;
  const grantId = newId();
  await openGrant(api.deps.store, { _id: grantId, clientId: holder._id, userId, scope, sid: null });
  const auth = { authTime: new Date(), amr: ['pwd'], acr: 'urn:keyflow:acr:pwd', sid: null };
  const issued = await issueAccessToken(
    { issuer: api.deps.config.issuer, signer: api.deps.signer, mlDsaResources: [] },
    { client: holder, userId, scope, grantId, auth },
  );
  return issued.access_token;
}
