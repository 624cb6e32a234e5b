// PS256 and ES256, the signing algorithms FAPI 2.0 allows, beside RS256 and
// ML-DSA-65: a client registered for one gets its ID token, access token (when
// it names the algorithm for them too) and signed UserInfo with it, each verifiable against the JWKS by a relying
// party's JOSE library (jose) with that algorithm alone; at_hash is SHA-256's
// left half; Keyflow's own checks (UserInfo, introspection) accept its tokens;
// and the app API and dynamic registration accept the algorithms.
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { useTestApi, type Json } from '../../support/harness.js';
import { useRegistration } from '../../support/registration.js';
import { getUserinfo, postForm } from '../../support/http.js';
import { newTestRp, runCodeFlow } from '../../support/token-flow.js';

const api = useTestApi();
const registration = useRegistration(api, 'algs');
const register = (metadata: Record<string, unknown>) =>
  registration.register({ client_name: 'Algorithms RP', redirect_uris: ['https://algs.example/cb'], ...metadata });
const jwks = () => createRemoteJWKSet(new URL(`${api.issuer}/.well-known/jwks.json`));

describe.each(['PS256', 'ES256'] as const)('a client registered for %s', (alg) => {
  it('gets ID token, access token and signed UserInfo with it, each verifying against the JWKS', async () => {
    const rp = await newTestRp(api, { idTokenSignedResponseAlg: alg, userinfoSignedResponseAlg: alg, accessTokenSignedResponseAlg: alg });
    const { tokens, user } = await runCodeFlow(api, rp, 'openid profile');

    const id = await jwtVerify(tokens.id_token, jwks(), { issuer: api.issuer, audience: rp.id, algorithms: [alg] });
    expect(id.protectedHeader).toMatchObject({ alg, kid: expect.any(String) });
    expect(id.payload.sub).toBe(user._id);
    const digest = createHash('sha256').update(tokens.access_token).digest();
    expect(id.payload.at_hash).toBe(digest.subarray(0, 16).toString('base64url'));

    const access = await jwtVerify(tokens.access_token, jwks(), { issuer: api.issuer, algorithms: [alg], typ: 'at+jwt' });
    expect(access.payload.client_id).toBe(rp.id);
    // The ES256 key is an EC key and the PS256 key an RSA key of its own, not RS256's.
    const keys = ((await (await fetch(`${api.issuer}/.well-known/jwks.json`)).json()) as Json).keys as Json[];
    expect(keys.find((k) => k.kid === id.protectedHeader.kid)).toMatchObject({ alg, kty: alg === 'ES256' ? 'EC' : 'RSA' });

    // Keyflow verifies its own token of that algorithm: UserInfo answers (signed with it) and introspection says active.
    const info = await getUserinfo(api, tokens.access_token);
    expect([info.status, info.headers.get('content-type')]).toEqual([200, 'application/jwt']);
    const signed = await info.text();
    expect(decodeProtectedHeader(signed).alg).toBe(alg);
    expect((await jwtVerify(signed, jwks(), { issuer: api.issuer, audience: rp.id, algorithms: [alg] })).payload.sub).toBe(user._id);
    const introspected = await postForm(api, '/api/oauth/introspect', { token: tokens.access_token }, rp.auth);
    expect(introspected.body).toMatchObject({ active: true, client_id: rp.id });
  });

  it('can be chosen at dynamic registration, and discovery lists it', async () => {
    const { status, body } = await register({ id_token_signed_response_alg: alg, userinfo_signed_response_alg: alg });
    expect([status, body.id_token_signed_response_alg, body.userinfo_signed_response_alg]).toEqual([201, alg, alg]);
    const discovery = (await (await fetch(`${api.issuer}/.well-known/openid-configuration`)).json()) as Json;
    expect(discovery.id_token_signing_alg_values_supported).toContain(alg);
    expect(discovery.userinfo_signing_alg_values_supported).toContain(alg);
  });
});

it('refuses an algorithm it does not sign with, naming those it does', async () => {
  const registered = await register({ id_token_signed_response_alg: 'ES384' });
  expect([registered.status, registered.body]).toEqual([
    400,
    { error: 'invalid_client_metadata', error_description: 'id_token_signed_response_alg must be one of ML-DSA-65, RS256, PS256, ES256' },
  ]);
});
