// Upstream identity providers an admin configures ("OAuth sources": Sign in
// with …), and the social accounts linked through them. The client secret is
// sealed with the KEK (AAD `oauth-source:<id>`), never stored or shown in clear.
import { z } from 'zod';
import type { Sealed } from '../security/kek.js';

export interface ClaimMapping {
  /** The upstream claim that identifies the account (stable, never reassigned). */
  subject: string;
  email: string;
  emailVerified: string;
  name: string;
  username: string;
}

export const DEFAULT_CLAIM_MAPPING: ClaimMapping = {
  subject: 'sub',
  email: 'email',
  emailVerified: 'email_verified',
  name: 'name',
  username: 'preferred_username',
};

export interface OAuthSourceDoc {
  _id: string;
  /** Unique on the instance; in the sign-in URL (`/login/source/<slug>`). */
  slug: string;
  name: string;
  /** `oidc`: discovery from `issuer` and ID token validation; `oauth2`: explicit endpoints and a UserInfo-style profile endpoint. */
  kind: 'oidc' | 'oauth2';
  issuer: string | null;
  authorizationEndpoint: string | null;
  tokenEndpoint: string | null;
  userinfoEndpoint: string | null;
  clientId: string;
  /** Sealed with the KEK, AAD `oauth-source:<_id>`; null for a public client. */
  clientSecret: Sealed | null;
  scopes: string[];
  /** May a first sign-in create a new Keyflow account? */
  allowSignUp: boolean;
  /**
   * May a first sign-in link to an existing account with the same email? Only
   * when the upstream says the email is verified, and only when the operator
   * turned this on for the source: an upstream that lets anyone claim any
   * email would otherwise hand over the account (account takeover).
   */
  linkByVerifiedEmail: boolean;
  claimMapping: ClaimMapping;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** One upstream account linked to one Keyflow user; (sourceId, providerUserId) is unique. */
export interface SocialAccountDoc {
  _id: string;
  userId: string;
  sourceId: string;
  /** The source's slug at link time (the `provider` of the claim and API). */
  provider: string;
  providerUserId: string;
  email: string | null;
  linkedAt: Date;
  lastSignInAt: Date | null;
}

const Slug = z.string().regex(/^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/, 'must be 1 to 40 lowercase letters, digits and inner hyphens');
const HttpsUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(2048);
const ClaimName = z.string().regex(/^[A-Za-z0-9_:.-]{1,100}$/, 'must be a claim name');

/** Adding a source (admin API and CLI bodies use these snake_case names). */
export const NewSourceInput = z
  .object({
    name: z.string().trim().min(1).max(100),
    slug: Slug,
    kind: z.enum(['oidc', 'oauth2']).default('oidc'),
    issuer: HttpsUrl.nullable().default(null),
    authorization_endpoint: HttpsUrl.nullable().default(null),
    token_endpoint: HttpsUrl.nullable().default(null),
    userinfo_endpoint: HttpsUrl.nullable().default(null),
    client_id: z.string().min(1).max(500),
    client_secret: z.string().min(1).max(2000).nullable().default(null),
    scopes: z
      .array(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,200}$/, 'must be a scope token'))
      .max(50)
      .default(['openid', 'email', 'profile']),
    allow_sign_up: z.boolean().default(false),
    link_by_verified_email: z.boolean().default(false),
    claim_mapping: z
      .object({ subject: ClaimName, email: ClaimName, email_verified: ClaimName, name: ClaimName, username: ClaimName })
      .partial()
      .strict()
      .default({}),
    enabled: z.boolean().default(true),
  })
  .strict()
  .refine((s) => (s.kind === 'oidc' ? s.issuer !== null : s.authorization_endpoint !== null && s.token_endpoint !== null && s.userinfo_endpoint !== null), {
    message: 'an oidc source needs issuer; an oauth2 source needs authorization_endpoint, token_endpoint and userinfo_endpoint',
  });
export type NewSourceInput = z.infer<typeof NewSourceInput>;

/** A claim mapping named as NewSourceInput's `claim_mapping` names it: what an answer shows, a body can send back. */
export function claimMappingJson(m: ClaimMapping): Required<NewSourceInput['claim_mapping']> {
  return { subject: m.subject, email: m.email, email_verified: m.emailVerified, name: m.name, username: m.username };
}

/** A source's settings as NewSourceInput names them (the secret left out: it is sealed): what an answer shows, a body can send back. */
export function sourceSettings(s: OAuthSourceDoc): Omit<NewSourceInput, 'client_secret'> {
  return {
    name: s.name,
    slug: s.slug,
    kind: s.kind,
    issuer: s.issuer,
    authorization_endpoint: s.authorizationEndpoint,
    token_endpoint: s.tokenEndpoint,
    userinfo_endpoint: s.userinfoEndpoint,
    client_id: s.clientId,
    scopes: s.scopes,
    allow_sign_up: s.allowSignUp,
    link_by_verified_email: s.linkByVerifiedEmail,
    claim_mapping: claimMappingJson(s.claimMapping),
    enabled: s.enabled,
  };
}

/** A source as the admin API and CLI show it: the secret never, only whether one is set. */
export function sourceJson(s: OAuthSourceDoc): Record<string, unknown> {
  return { id: s._id, ...sourceSettings(s), client_secret_set: s.clientSecret !== null, created_at: s.createdAt.toISOString() };
}

/** A social account as the API and claims show it. */
export const socialAccountJson = (a: SocialAccountDoc) => ({ id: a._id, provider: a.provider, provider_user_id: a.providerUserId });
