// The upstream side of "Sign in with …": one openid-client configuration per
// OAuth source. Discovery, PKCE S256, state, nonce, the ID token's signature
// (upstream JWKS, even for a token from the token endpoint), audience, issuer
// and the authorization response's `iss` are all checked by openid-client,
// never by hand. Its HTTP calls go through
// the outbound policy (lib/sources/upstream-fetch.ts): plain http, or an
// internal address, only where OUTBOUND_ALLOWLIST admits `oauth_sources`.
import type { UpstreamChecks } from '../model/upstream-login.js';
import * as oidc from 'openid-client';
import type { ClaimMapping, OAuthSourceDoc } from '../model/oauth-sources.js';
import type { OutboundPolicy } from '../runtime/http-client.js';
import { open, type Kek } from '../security/kek.js';
import { plainHttpAdmitted, upstreamFetch } from './upstream-fetch.js';
import { currentTimeMs } from '../runtime/clock.js';

/** What the upstream said about the account, through the source's claim mapping. */
export interface UpstreamProfile {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  username: string | null;
}

/** What a sign-in keeps server-side between the redirect out and the callback. */

/**
 * A configuration is kept while the source is unchanged, so a sign-in does not
 * rediscover the upstream each time; per policy, since a configuration's fetch
 * carries the policy it was made under (one process may run apis with others, as tests do).
 */
const CACHE_MS = 10 * 60_000;
interface CacheEntry {
  config: oidc.Configuration;
  at: number;
}
const caches = new WeakMap<OutboundPolicy, Map<string, CacheEntry>>();

function clientAuth(kek: Kek, source: OAuthSourceDoc): { secret: string | undefined; auth: oidc.ClientAuth } {
  if (!source.clientSecret) return { secret: undefined, auth: oidc.None() };
  const secret = open(kek, source.clientSecret, `oauth-source:${source._id}`, `the client secret of OAuth source ${source.slug}`).toString('utf8');
  return { secret, auth: oidc.ClientSecretBasic(secret) };
}

async function configure(policy: OutboundPolicy, kek: Kek, source: OAuthSourceDoc): Promise<oidc.Configuration> {
  const { secret, auth } = clientAuth(kek, source);
  const base = new URL(source.issuer ?? source.authorizationEndpoint!);
  const named = [source.issuer, source.authorizationEndpoint, source.tokenEndpoint, source.userinfoEndpoint].flatMap((u) => (u ? [new URL(u)] : []));
  // Discovered endpoints are not known yet: the fetch refuses any that the allow-list does not admit.
  const insecure = plainHttpAdmitted(policy, source.slug, named);
  const fetch = upstreamFetch(policy);
  let config: oidc.Configuration;
  if (source.kind === 'oidc') {
    // openid-client skips the signature of an ID token from the token endpoint (TLS vouching for
    // it) unless told otherwise: an allow-listed http upstream has no TLS, and a forged token is refused anyway.
    const execute = [oidc.enableNonRepudiationChecks, ...(insecure ? [oidc.allowInsecureRequests] : [])];
    config = await oidc.discovery(base, source.clientId, secret, auth, { [oidc.customFetch]: fetch, execute });
  } else {
    const metadata = {
      issuer: base.origin,
      authorization_endpoint: source.authorizationEndpoint!,
      token_endpoint: source.tokenEndpoint!,
      userinfo_endpoint: source.userinfoEndpoint!,
    };
    config = new oidc.Configuration(metadata, source.clientId, secret, auth);
    config[oidc.customFetch] = fetch;
    if (insecure) oidc.allowInsecureRequests(config);
  }
  return config;
}

/** The source's openid-client configuration, its HTTP calls under `policy` (the config's `outbound`). */
export async function upstreamConfiguration(policy: OutboundPolicy, kek: Kek, source: OAuthSourceDoc): Promise<oidc.Configuration> {
  let cache = caches.get(policy);
  if (!cache) caches.set(policy, (cache = new Map<string, CacheEntry>()));
  const key = `${source._id}:${source.updatedAt.getTime()}`;
  const hit = cache.get(key);
  if (hit && currentTimeMs() - hit.at < CACHE_MS) return hit.config;
  const config = await configure(policy, kek, source);
  cache.set(key, { config, at: currentTimeMs() });
  return config;
}

/** Fresh checks for one sign-in, and the URL that sends the browser to the upstream. */
export async function authorizationRedirect(
  config: oidc.Configuration,
  source: OAuthSourceDoc,
  redirectUri: string,
): Promise<{ url: URL; checks: UpstreamChecks }> {
  const checks = { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() };
  const params: Record<string, string> = {
    redirect_uri: redirectUri,
    scope: source.scopes.join(' '),
    response_type: 'code',
    state: checks.state,
    code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
    code_challenge_method: 'S256',
  };
  if (source.kind === 'oidc') params.nonce = checks.nonce;
  return { url: oidc.buildAuthorizationUrl(config, params), checks };
}

const claimString = (claims: Record<string, unknown>, name: string): string | null => {
  const v = claims[name];
  return typeof v === 'string' && v.length > 0 && v.length <= 500 ? v : typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : null;
};

export function profileFrom(claims: Record<string, unknown>, mapping: ClaimMapping): UpstreamProfile | null {
  const subject = claimString(claims, mapping.subject);
  if (!subject) return null;
  const email = claimString(claims, mapping.email)?.toLowerCase() ?? null;
  return {
    subject,
    email,
    // Only a literal true counts: "true" strings and absent claims are not a verification.
    emailVerified: email !== null && claims[mapping.emailVerified] === true,
    name: claimString(claims, mapping.name),
    username: claimString(claims, mapping.username),
  };
}

/**
 * The callback: the code exchanged with the PKCE verifier, the state, nonce
 * and `iss` checked, the ID token validated; the profile from the ID token
 * and UserInfo (oidc) or the profile endpoint (oauth2). Throws on any failed check.
 */
export async function completeUpstreamSignIn(
  config: oidc.Configuration,
  source: OAuthSourceDoc,
  callbackUrl: URL,
  checks: UpstreamChecks,
): Promise<UpstreamProfile | null> {
  const isOidc = source.kind === 'oidc';
  const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
    pkceCodeVerifier: checks.codeVerifier,
    expectedState: checks.state,
    ...(isOidc ? { expectedNonce: checks.nonce, idTokenExpected: true } : {}),
  });
  if (isOidc) {
    const claims = tokens.claims();
    if (!claims) return null;
    // Claims asked for by scope may be served only by UserInfo; its `sub` must be the ID token's.
    const userinfo = config.serverMetadata().userinfo_endpoint ? await oidc.fetchUserInfo(config, tokens.access_token, claims.sub) : {};
    return profileFrom({ ...userinfo, ...claims }, source.claimMapping);
  }
  const response = await oidc.fetchProtectedResource(config, tokens.access_token, new URL(source.userinfoEndpoint!), 'GET');
  if (!response.ok) return null;
  const body: unknown = await response.json();
  return body && typeof body === 'object' ? profileFrom(body as Record<string, unknown>, source.claimMapping) : null;
}
