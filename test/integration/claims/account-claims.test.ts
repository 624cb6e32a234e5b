// The opt-in claims of the user's account: `domains`, `gpg_keys` and
// `social_accounts` in the ID token when the scope is granted AND the client
// opted in with oidc_fields, never otherwise; UserInfo carries the same.
import { generateKey } from 'openpgp';
import { DEFAULT_CLAIM_MAPPING } from '../../../lib/model/oauth-sources.js';
import { parsePublicKey } from '../../../lib/accounts/gpg-public-key.js';
import { newId } from '../../../lib/security/secrets.js';
import { addDomain } from '../../../lib/store/custom-domains.js';
import { addGpgKey } from '../../../lib/store/gpg-keys.js';
import { insertSocialAccount, insertSource } from '../../../lib/store/oauth-sources.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { FLOW_PASSWORD, newTestRp, runCodeFlow } from '../../support/token-flow.js';
import { jwtClaims } from '../../support/http.js';

const api = useTestApi();

const SCOPES = ['openid', 'domains:read', 'gpg:read', 'social:read'];

async function userWithAccount() {
  const fixture = await newUser(api.deps, { prefix: 'claims-account', password: FLOW_PASSWORD });
  const id = fixture.id;
  const domain = await addDomain(api.deps.store, id, `claims-${id.slice(0, 8)}.example`);
  const { publicKey } = await generateKey({ type: 'curve25519', userIDs: [{ name: 'Claims Key', email: fixture.email }] });
  const key = await addGpgKey(api.deps.store, id, await parsePublicKey(publicKey));
  const now = new Date();
  const source = {
    _id: newId(),
    slug: `claims-${id.slice(0, 8)}`,
    name: 'Upstream',
    kind: 'oidc' as const,
    issuer: 'https://upstream.example',
    authorizationEndpoint: null,
    tokenEndpoint: null,
    userinfoEndpoint: null,
    clientId: 'keyflow',
    clientSecret: null,
    scopes: ['openid'],
    allowSignUp: false,
    linkByVerifiedEmail: false,
    claimMapping: DEFAULT_CLAIM_MAPPING,
    enabled: true,
    createdAt: now,
    updatedAt: now,
  };
  await insertSource(api.deps.store, source);
  const social = {
    _id: newId(),
    userId: id,
    sourceId: source._id,
    provider: source.slug,
    providerUserId: 'upstream-42',
    email: null,
    linkedAt: now,
    lastSignInAt: null,
  };
  await insertSocialAccount(api.deps.store, social);
  return { fixture, domain, key, social, source };
}

it('releases domains, gpg_keys and social_accounts to a client that opted in, the same in UserInfo', async () => {
  const { fixture, domain, key, social, source } = await userWithAccount();
  const rp = await newTestRp(api, { allowedScopes: SCOPES, oidcFields: ['domains', 'gpg_keys', 'social_accounts'] });
  const { tokens } = await runCodeFlow(api, rp, SCOPES.join(' '), { user: { email: fixture.email, doc: fixture.user } });
  const id = jwtClaims(tokens.id_token);
  expect(id.domains).toEqual([{ id: domain._id, domain: domain.domain, verified: false }]);
  expect(id.gpg_keys).toEqual([{ id: key._id, fingerprint: key.fingerprint, key_id: key.keyId, name: key.name }]);
  expect(id.social_accounts).toEqual([{ id: social._id, provider: source.slug, provider_user_id: 'upstream-42' }]);
  const info: Json = await fetch(`${api.url}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } }).then((r) => r.json());
  expect({ domains: info.domains, gpg_keys: info.gpg_keys, social_accounts: info.social_accounts }).toEqual({
    domains: id.domains,
    gpg_keys: id.gpg_keys,
    social_accounts: id.social_accounts,
  });
});

it('releases none of them without the opt-in, nor without the scope', async () => {
  const { fixture } = await userWithAccount();
  const noOptIn = await newTestRp(api, { allowedScopes: SCOPES });
  const a = await runCodeFlow(api, noOptIn, SCOPES.join(' '), { user: { email: fixture.email, doc: fixture.user } });
  const optedIn = await newTestRp(api, { allowedScopes: SCOPES, oidcFields: ['domains', 'gpg_keys', 'social_accounts'] });
  const b = await runCodeFlow(api, optedIn, 'openid', { user: { email: fixture.email, doc: fixture.user }, agent: a.agent });
  for (const tokens of [a.tokens, b.tokens]) {
    const id = jwtClaims(tokens.id_token);
    for (const claim of ['domains', 'gpg_keys', 'social_accounts']) expect(id).not.toHaveProperty(claim);
    const info: Json = await fetch(`${api.url}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } }).then((r) => r.json());
    for (const claim of ['domains', 'gpg_keys', 'social_accounts']) expect(info).not.toHaveProperty(claim);
  }
});
