// OAuth sources for tests, inserted straight into the store as the admin API
// would (the client secret sealed with the KEK).
import type { ApiUnderTest } from './harness.js';
import { DEFAULT_CLAIM_MAPPING, type OAuthSourceDoc } from '../../lib/model/oauth-sources.js';
import { seal } from '../../lib/security/kek.js';
import { newId } from '../../lib/security/secrets.js';
import { insertSource } from '../../lib/store/oauth-sources.js';

export const UPSTREAM_CLIENT_ID = 'keyflow-test';
export const UPSTREAM_CLIENT_SECRET = 'upstream client secret for keyflow tests';

/** An `oidc` source of `issuer`, or (with `kind: 'oauth2'` and the three endpoints in `opts`) an `oauth2` one. */
export async function newSource(
  api: ApiUnderTest,
  issuer: string | null,
  opts: Partial<
    Pick<
      OAuthSourceDoc,
      'allowSignUp' | 'linkByVerifiedEmail' | 'name' | 'slug' | 'kind' | 'authorizationEndpoint' | 'tokenEndpoint' | 'userinfoEndpoint' | 'scopes'
    >
  > = {},
): Promise<OAuthSourceDoc> {
  const id = newId();
  const slug = opts.slug ?? `up-${id.slice(0, 8)}`;
  const now = new Date();
  const source: OAuthSourceDoc = {
    _id: id,
    slug,
    name: opts.name ?? `Upstream ${slug}`,
    kind: opts.kind ?? 'oidc',
    issuer,
    authorizationEndpoint: opts.authorizationEndpoint ?? null,
    tokenEndpoint: opts.tokenEndpoint ?? null,
    userinfoEndpoint: opts.userinfoEndpoint ?? null,
    clientId: UPSTREAM_CLIENT_ID,
    clientSecret: seal(api.deps.kek, Buffer.from(UPSTREAM_CLIENT_SECRET), `oauth-source:${id}`),
    scopes: opts.scopes ?? ['openid', 'email', 'profile'],
    allowSignUp: opts.allowSignUp ?? false,
    linkByVerifiedEmail: opts.linkByVerifiedEmail ?? false,
    claimMapping: DEFAULT_CLAIM_MAPPING,
    enabled: true,
    createdAt: now,
    updatedAt: now,
  };
  await insertSource(api.deps.store, source);
  return source;
}
