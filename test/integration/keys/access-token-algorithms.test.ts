// Which algorithm signs what a relying party and a resource server receive:
// an app made in Keyflow keeps ML-DSA-65 ID tokens (and is told, on the app
// API and the CLI, which libraries read them and the one setting that gives
// RS256), while its access tokens are RS256, what every resource server
// verifies; ML-DSA-65 access tokens are an opt-in of the client or of the
// resources an operator lists (ACCESS_TOKEN_ML_DSA_RESOURCES); a client that
// registers itself without naming an algorithm gets RS256 ID tokens (OpenID
// Connect Dynamic Client Registration §2). Every token verifies against the
// published JWKS.
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { createPersonalAccessToken } from '../../../lib/store/personal-access-tokens.js';
import { useTestApi } from '../../support/harness.js';
import { runCli } from '../../support/cli.js';
import { testDatabase } from '../../support/database.js';
import { requestJson } from '../../support/http.js';
import { useRegistration } from '../../support/registration.js';
import { codeFlowTokens, FLOW_PASSWORD, newTestRp, runCodeFlow } from '../../support/token-flow.js';
import { newUser } from '../../../tools/fixtures/users.js';

const ML_DSA_API = 'https://pq-api.example/';
const CLASSIC_API = 'https://classic-api.example/';
const database = testDatabase('access_token_algs');
const api = useTestApi({ ...database.env, ACCESS_TOKEN_ML_DSA_RESOURCES: ML_DSA_API });
const registration = useRegistration(api, 'alg-registrar');

const alg = (jwt: string) => decodeProtectedHeader(jwt).alg;
async function verifies(jwt: string): Promise<void> {
  const jwks = createRemoteJWKSet(new URL(`${api.url}/.well-known/jwks.json`));
  await expect(jwtVerify(jwt, jwks, { issuer: api.deps.config.issuer })).resolves.toBeDefined();
}

describe('the algorithms of a new app', () => {
  it('made with the app API: ML-DSA-65 ID tokens with a note naming the libraries and the field for RS256; RS256 access tokens', async () => {
    const { user } = await newUser(api.deps, { prefix: 'alg-owner', password: FLOW_PASSWORD });
    const { token } = await createPersonalAccessToken(api.deps.store, user._id, { name: 't', scope: ['apps:write'], expiresInDays: 1 });
    const created = await requestJson(`${api.url}/api/oauth/me/apps`, 'POST', {
      token,
      body: { name: 'New app', redirect_uris: ['https://new-app.example/cb'] },
    });
    expect([created.status, created.body.id_token_signed_response_alg, created.body.access_token_signed_response_alg]).toEqual([201, 'ML-DSA-65', null]);
    expect(created.body.notes).toEqual([expect.stringMatching(/ML-DSA-65.*jose on Node\.js 24.*Spring Security.*"id_token_signed_response_alg": "RS256"/)]);
    // One named RS256 gets no note.
    const classic = await requestJson(`${api.url}/api/oauth/me/apps`, 'POST', {
      token,
      body: { name: 'Classic app', redirect_uris: ['https://new-app.example/cb'], id_token_signed_response_alg: 'RS256' },
    });
    expect([classic.status, classic.body.notes]).toEqual([201, undefined]);

    const rp = await newTestRp(api, { idTokenSignedResponseAlg: 'ML-DSA-65' });
    const { tokens } = await runCodeFlow(api, rp, 'openid profile');
    expect([alg(tokens.id_token), alg(tokens.access_token)]).toEqual(['ML-DSA-65', 'RS256']);
    await verifies(tokens.access_token);
  });

  it('made with the CLI: the same note on stderr, the JSON on stdout alone', async () => {
    const made = await runCli(['clients', 'create', '--name', 'CLI app', '--redirect-uri', 'https://cli-app.example/cb'], database.env);
    expect([made.code, JSON.parse(made.stdout).id_token_signed_response_alg]).toEqual([0, 'ML-DSA-65']);
    expect(made.stderr).toMatch(/^note: ID tokens of this app are signed with ML-DSA-65 .*--id-token-alg RS256/);
    const classic = await runCli(
      ['clients', 'create', '--name', 'CLI app', '--redirect-uri', 'https://cli-app.example/cb', '--id-token-alg', 'RS256'],
      database.env,
    );
    expect([classic.code, classic.stderr]).toEqual([0, '']);
    // And the one flag changes an existing app.
    const changed = await runCli(['clients', 'update', JSON.parse(made.stdout).client_id, '--id-token-alg', 'RS256'], database.env);
    expect([changed.code, JSON.parse(changed.stdout).id_token_signed_response_alg]).toEqual([0, 'RS256']);
  });

  it('registered dynamically without an algorithm: RS256 ID tokens (OIDC Dynamic Client Registration §2)', async () => {
    const registered = await registration.register({ client_name: 'Legacy RP', redirect_uris: ['https://legacy-rp.example/cb'] });
    expect([registered.status, registered.body.id_token_signed_response_alg]).toEqual([201, 'RS256']);
    const { email } = await newUser(api.deps, { prefix: 'alg-legacy', password: FLOW_PASSWORD });
    const auth = { authorization: `Basic ${Buffer.from(`${registered.body.client_id}:${registered.body.client_secret}`).toString('base64')}` };
    const tokens = await codeFlowTokens(
      api.url,
      { id: registered.body.client_id, headers: auth },
      'https://legacy-rp.example/cb',
      'openid',
      email,
      FLOW_PASSWORD,
    );
    expect([tokens.status, alg(tokens.body.id_token), alg(tokens.body.access_token)]).toEqual([200, 'RS256', 'RS256']);
    // Naming ML-DSA-65 still gets it.
    const pq = await registration.register({ client_name: 'PQ RP', redirect_uris: ['https://pq-rp.example/cb'], id_token_signed_response_alg: 'ML-DSA-65' });
    expect([pq.status, pq.body.id_token_signed_response_alg]).toEqual([201, 'ML-DSA-65']);
  });
});

describe('ML-DSA-65 access tokens, by opt-in', () => {
  it('for a client that names access_token_signed_response_alg ML-DSA-65', async () => {
    const rp = await newTestRp(api, { accessTokenSignedResponseAlg: 'ML-DSA-65' });
    const { tokens } = await runCodeFlow(api, rp, 'openid');
    expect([alg(tokens.id_token), alg(tokens.access_token)]).toEqual(['RS256', 'ML-DSA-65']);
    await verifies(tokens.access_token);
  });

  it('for a token whose resources all verify ML-DSA-65, as the operator lists them; RS256 when one does not', async () => {
    const rp = await newTestRp(api, { allowedResources: [ML_DSA_API, CLASSIC_API] });
    const pq = await runCodeFlow(api, rp, 'openid', { extra: [['resource', ML_DSA_API]] });
    expect(alg(pq.tokens.access_token)).toBe('ML-DSA-65');
    const mixed = await runCodeFlow(api, rp, 'openid', {
      extra: [
        ['resource', ML_DSA_API],
        ['resource', CLASSIC_API],
      ],
    });
    expect(alg(mixed.tokens.access_token)).toBe('RS256');
    const none = await runCodeFlow(api, rp, 'openid');
    expect(alg(none.tokens.access_token)).toBe('RS256');
  });
});
