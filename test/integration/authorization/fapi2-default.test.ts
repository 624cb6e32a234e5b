// FAPI_PROFILE_DEFAULT=fapi2: every client registered or created without
// `fapi_profile` is a FAPI 2.0 client (held to its rules when it is made),
// through dynamic registration, the app API and the CLI; `fapi_profile: null`
// (`--fapi-profile none`) still makes a plain client, and clients made before
// keep what they were.
import { expectRefused, runCli } from '../../support/cli.js';
import { newClientKey } from '../../support/client-keys.js';
import { FAPI_REDIRECT } from '../../support/fapi-client.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { useRegistration } from '../../support/registration.js';

const SITE = { FAPI_PROFILE_DEFAULT: 'fapi2' };
const api = useTestApi(SITE);
const { register, token } = useRegistration(api, 'fapi-default');

it('registers a private_key_jwt client as a FAPI 2.0 client (PS256), and refuses a client secret unless fapi_profile is null', async () => {
  const key = await newClientKey('ES256');
  const fapi = await register({
    client_name: 'Bank',
    redirect_uris: [FAPI_REDIRECT],
    token_endpoint_auth_method: 'private_key_jwt',
    jwks: { keys: [key.jwk] },
  });
  expect([fapi.status, fapi.body.fapi_profile, fapi.body.id_token_signed_response_alg]).toEqual([201, 'fapi2', 'PS256']);
  const secret = await register({ client_name: 'Shop', redirect_uris: [FAPI_REDIRECT] });
  expect([secret.status, secret.body.error]).toEqual([400, 'invalid_client_metadata']);
  expect(secret.body.error_description).toMatch(/a FAPI 2\.0 client authenticates with private_key_jwt/);
  const plain = await register({ client_name: 'Shop', redirect_uris: [FAPI_REDIRECT], fapi_profile: null });
  expect([plain.status, plain.body.fapi_profile]).toEqual([201, undefined]);
});

it('gives a new app the profile on the app API, and a change keeps what the app had', async () => {
  const post = async (path: string, body: unknown, method = 'POST') => {
    const res = await fetch(`${api.issuer}/api/oauth/me/apps${path}`, {
      method,
      headers: { authorization: `Bearer ${token()}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const refused = await post('', { name: 'App', redirect_uris: [FAPI_REDIRECT] });
  expect([refused.status, refused.body.error_description]).toEqual([400, expect.stringMatching(/private_key_jwt/)]);
  const plain = await post('', { name: 'App', redirect_uris: [FAPI_REDIRECT], fapi_profile: null });
  expect([plain.status, plain.body.fapi_profile]).toEqual([201, null]);
  const renamed = await post(`/${plain.body.client_id}`, { name: 'Renamed' }, 'PATCH');
  expect([renamed.status, renamed.body.fapi_profile]).toEqual([200, null]);
});

it('makes CLI clients FAPI 2.0 clients unless --fapi-profile none', async () => {
  const env = SITE;
  expectRefused(
    await runCli(['clients', 'create', '--name', 'CLI', '--redirect-uri', FAPI_REDIRECT], env),
    2,
    /a FAPI 2\.0 client authenticates with private_key_jwt/,
  );
  const plain = await runCli(['clients', 'create', '--name', 'CLI', '--redirect-uri', FAPI_REDIRECT, '--fapi-profile', 'none'], env);
  expect([plain.code, JSON.parse(plain.stdout).fapi_profile]).toEqual([0, null]);
});
