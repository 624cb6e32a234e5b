// "Sign in with …" and the upstream's side, in headless Chromium against a
// real upstream (oidc-provider on 127.0.0.1, behind a front that records its
// requests and can replace the token endpoint's ID token): the outbound
// allow-list decides whether Keyflow reaches the upstream at all; an `oauth2`
// source signs in with no ID token; an ID token issued to another client, or
// with a forged signature, is refused without signing in.
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import * as oidc from 'openid-client';
import type { Page } from 'playwright-core';
import type { RunningApi } from '../../../api/server.js';
import { findSocialAccount } from '../../../lib/store/oauth-sources.js';
import { findUserByEmail } from '../../../lib/store/users.js';
import { expectSignedOut, useBrowser } from '../../support/browser.js';
import { startLocalhostApi, STACK_FRAME } from '../../support/harness.js';
import { newSource, UPSTREAM_CLIENT_ID, UPSTREAM_CLIENT_SECRET } from '../../support/oauth-source.js';
import { startUpstreamIdp, startUpstreamSignIn, type UpstreamIdp, upstreamPages } from '../../support/upstream-idp.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';

let admitted: RunningApi;
let notAdmitted: RunningApi;
let upstream: UpstreamIdp;
const browser = useBrowser();
const run = Date.now().toString(36);
const slugs = Array.from({ length: 5 }, (_, i) => `chk-${run}-${i}`);
let nextSlug = 0;
/** A second client of the same upstream: its ID tokens are for another audience. Its redirect URI is never answered. */
const OTHER = { clientId: 'another-rp', clientSecret: 'another rp secret', redirectUris: ['http://127.0.0.1:9/callback'] };

beforeAll(async () => {
  // Both apis allow-list loopback, only one of them for oauth_sources.
  admitted = await startLocalhostApi({ OUTBOUND_ALLOWLIST: 'oauth_sources=127.0.0.1:*' });
  notAdmitted = await startLocalhostApi({ OUTBOUND_ALLOWLIST: 'webhooks=127.0.0.1:*,*=localhost:*' });
  const redirectUris = [admitted, notAdmitted].flatMap((api) => slugs.map((slug) => `${api.deps.config.issuer}/login/source/${slug}/callback`));
  upstream = await startUpstreamIdp([{ clientId: UPSTREAM_CLIENT_ID, clientSecret: UPSTREAM_CLIENT_SECRET, redirectUris }, OTHER]);
});
afterAll(async () => {
  await upstream?.close();
  await admitted?.stop();
  await notAdmitted?.stop();
});

const newPage = browser.newPage;

/** A source that allows sign-up, of the upstream's issuer (an `oidc` one) unless `issuer` is null. */
const source = (opts: Parameters<typeof newSource>[2] = {}, issuer: string | null = upstream.issuer) =>
  newSource(admitted, issuer, { allowSignUp: true, ...opts, slug: slugs[nextSlug++]! });
const issuerOf = (api: RunningApi) => api.deps.config.issuer;

/** A new upstream account with a fresh verified email. */
function upstreamAccount(prefix: string): { sub: string; email: string } {
  const sub = `${prefix}-${Date.now()}`;
  const email = uniqueEmail(prefix);
  upstream.accounts.set(sub, { email, email_verified: true });
  return { sub, email };
}

describe('Sign in with an upstream provider: the upstream side', () => {
  it('reaches the upstream only when OUTBOUND_ALLOWLIST admits oauth_sources for its host and port', async () => {
    const s = await source();
    const { sub, email } = upstreamAccount('allowlist');
    const page = await newPage();

    const before = upstream.requests.length;
    const refused = page.waitForResponse((r) => r.url() === `${issuerOf(notAdmitted)}/login/source/${s.slug}`);
    await startUpstreamSignIn(page, issuerOf(notAdmitted), s.name);
    expect((await refused).status()).toBe(502);
    await page.getByText(`${s.name} cannot be reached right now`).waitFor();
    expect(await page.content()).not.toMatch(STACK_FRAME);
    expect(upstream.requests.slice(before)).toEqual([]);
    await expectSignedOut(page, issuerOf(notAdmitted));

    await startUpstreamSignIn(page, issuerOf(admitted), s.name);
    await upstreamPages(page, sub);
    await page.waitForURL(`${issuerOf(admitted)}/account`);
    expect(await findUserByEmail(admitted.deps.store, email)).not.toBeNull();
    expect(upstream.requests.slice(before)).toContain('GET /.well-known/openid-configuration');
  });

  it('signs up through an oauth2 source (explicit endpoints, no ID token), the profile from its userinfo endpoint', async () => {
    const discovered = (await (await fetch(`${upstream.issuer}/.well-known/openid-configuration`)).json()) as Record<string, string>;
    const endpoints = {
      authorizationEndpoint: discovered.authorization_endpoint!,
      tokenEndpoint: discovered.token_endpoint!,
      userinfoEndpoint: discovered.userinfo_endpoint!,
    };
    const s = await source({ kind: 'oauth2', ...endpoints, scopes: ['openid', 'email'] }, null);
    const { sub, email } = upstreamAccount('oauth2');
    const page = await newPage();
    let authorization = '';
    page.on('request', (r) => {
      if (r.url().startsWith(discovered.authorization_endpoint!)) authorization = r.url();
    });
    // The upstream answers `openid` with an ID token: it is taken out, an oauth2 source must not need one.
    upstream.rewriteIdToken = () => Promise.resolve(null);
    try {
      await startUpstreamSignIn(page, issuerOf(admitted), s.name);
      await upstreamPages(page, sub);
      await page.waitForURL(`${issuerOf(admitted)}/account`);
    } finally {
      upstream.rewriteIdToken = null;
    }
    expect(new URL(authorization).searchParams.has('nonce')).toBe(false);
    const user = await findUserByEmail(admitted.deps.store, email);
    expect(user).not.toBeNull();
    expect((await findSocialAccount(admitted.deps.store, s._id, sub))?.userId).toBe(user!._id);
  });

  it('refuses an ID token the upstream issued to another client, without signing in', async () => {
    const s = await source();
    const { sub, email } = upstreamAccount('audience');
    const page = await newPage();
    const authorization = page.waitForRequest((r) => r.url().startsWith(`${upstream.issuer}/auth?`));
    await startUpstreamSignIn(page, issuerOf(admitted), s.name);
    const nonce = new URL((await authorization).url()).searchParams.get('nonce')!;
    // Same upstream, same user, same nonce: only the audience differs.
    const foreign = await idTokenForAnotherClient(sub, nonce);
    expect(decodeJwt(foreign)).toEqual(expect.objectContaining({ iss: upstream.issuer, sub, nonce, aud: OTHER.clientId }));
    await expectRefused(page, s._id, sub, email, () => Promise.resolve(foreign));
  });

  it('refuses an ID token with a forged signature (the same claims and kid, a key the upstream does not publish), without signing in', async () => {
    const s = await source();
    const { sub, email } = upstreamAccount('forged');
    const page = await newPage();
    await startUpstreamSignIn(page, issuerOf(admitted), s.name);
    let forged = false;
    await expectRefused(page, s._id, sub, email, async (real) => {
      const header = decodeProtectedHeader(real);
      const { privateKey } = await generateKeyPair(header.alg!);
      forged = true;
      return new SignJWT(decodeJwt(real))
        .setProtectedHeader({ alg: header.alg!, kid: header.kid!, ...(header.typ ? { typ: header.typ } : {}) })
        .sign(privateKey);
    });
    expect(forged).toBe(true);
  });
});

/** Finishes the sign-in at the upstream with its ID token replaced: the callback is refused and nobody is signed in or linked. */
async function expectRefused(page: Page, sourceId: string, sub: string, email: string, rewrite: NonNullable<UpstreamIdp['rewriteIdToken']>): Promise<void> {
  upstream.rewriteIdToken = rewrite;
  try {
    await upstreamPages(page, sub);
    await page.getByText('could not be verified').waitFor();
  } finally {
    upstream.rewriteIdToken = null;
  }
  expect(await page.content()).not.toMatch(STACK_FRAME);
  await expectSignedOut(page, issuerOf(admitted));
  expect(await findSocialAccount(admitted.deps.store, sourceId, sub)).toBeNull();
  expect(await findUserByEmail(admitted.deps.store, email)).toBeNull();
}

/** An ID token the upstream issues to OTHER for `sub` with `nonce`: that client's own code flow, in a browser of its own. */
async function idTokenForAnotherClient(sub: string, nonce: string): Promise<string> {
  const config = await oidc.discovery(new URL(upstream.issuer), OTHER.clientId, OTHER.clientSecret, undefined, { execute: [oidc.allowInsecureRequests] });
  const redirectUri = OTHER.redirectUris[0]!;
  const state = oidc.randomState();
  const verifier = oidc.randomPKCECodeVerifier();
  const challenge = await oidc.calculatePKCECodeChallenge(verifier);
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid email',
    state,
    nonce,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const page = await newPage();
  const callback = page.waitForRequest((r) => r.url().startsWith(redirectUri));
  await page.goto(url.href);
  await upstreamPages(page, sub);
  const tokens = await oidc.authorizationCodeGrant(config, new URL((await callback).url()), {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  return tokens.id_token!;
}
