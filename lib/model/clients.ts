// The client (Application) model, and validation of what an
// operator, the app API or dynamic registration may set on it.
import { z } from 'zod';
import { ValidationError, zodProblems } from './errors.js';
import { redirectUriEntryProblem, isLoopbackHost, REDIRECT_URI_TYPES } from './redirect-uri.js';
import { REQUEST_OBJECT_SIGNING_ALG_VALUES, requestUriProblem } from './request-object.js';
import { resourceProblem } from './resources.js';
import { isKnownScope } from './scopes.js';
import { machineScopeProblem } from './machine-access.js';
import { SIGNING_ALGS, type SigningAlg } from './signing-keys.js';
import { FAPI_PROFILES, fapi2ClientProblems } from './fapi2.js';
import { CLIENT_GRANT_TYPES, isClientGrantType, usesRedirectFlows } from './grant-types.js';

export const TOKEN_ENDPOINT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'] as const;
export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];

export const OIDC_FIELDS = ['teams', 'apps', 'domains', 'gpg_keys', 'social_accounts'] as const;
export type OidcField = (typeof OIDC_FIELDS)[number];

export const ID_TOKEN_ALGS = SIGNING_ALGS;
export type IdTokenAlg = SigningAlg;

/**
 * The ID token algorithms a deployment offers, the first the default of a new
 * client: ML-DSA-65 first, unless the operator withholds it (ML_DSA_SIGNING=off)
 * for relying parties whose JOSE library refuses a JWKS with a key type it
 * does not know.
 */
export const offeredIdTokenAlgs = (mlDsa: boolean): readonly IdTokenAlg[] => (mlDsa ? ID_TOKEN_ALGS : ID_TOKEN_ALGS.filter((a) => a !== 'ML-DSA-65'));

const DEFAULT_SCOPES = ['openid', 'profile', 'email'];
/** Regex redirect URI entries per client. */
export const MAX_REGEX_ENTRIES = 5;

const redirectUriEntry = z.object({ type: z.enum(REDIRECT_URI_TYPES).default('equals'), value: z.string().min(1).max(2048) }).superRefine((entry, ctx) => {
  const problem = redirectUriEntryProblem(entry);
  if (problem) ctx.addIssue({ code: 'custom', message: `${entry.value} ${problem}` });
});

/** A browser redirect target (post-logout): absolute http(s), no fragment. */
const absoluteHttpUri = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      return ['https:', 'http:'].includes(new URL(v).protocol) && !v.includes('#');
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URI without fragment');

/**
 * A URI Keyflow itself calls (jwks_uri, back-channel logout): https, or http
 * on a loopback host only (which the outbound allow-list must still admit).
 * No credentials, no fragment.
 */
export const outboundUri = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const url = new URL(v);
      if (v.includes('#') || url.username || url.password) return false;
      return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
    } catch {
      return false;
    }
  }, 'must be an absolute https URI without credentials or fragment (http only for loopback hosts)');

const machineScope = z.string().superRefine((v, ctx) => {
  const problem = machineScopeProblem(v);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

const requestUri = z.string().superRefine((v, ctx) => {
  const problem = requestUriProblem(v);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

const resourceUri = z
  .string()
  .max(2048)
  .superRefine((v, ctx) => {
    const problem = resourceProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

const machineAccessEntry = z.object({ resource: resourceUri, scopes: z.array(machineScope).min(1, 'names no scope').max(50) }).strict();

export const NewClientInput = z
  .object({
    name: z.string().trim().min(1, 'is required').max(200),
    description: z.string().max(2000).default(''),
    // RFC 9700 §2.1: every client pre-registers its redirect URIs; none is ever learned.
    // At least one, unless the client only acts for itself (machine access): checked below.
    redirectUris: z
      .array(redirectUriEntry)
      .max(50)
      // Each Regex entry may cost up to a few tens of milliseconds on a crafted candidate (linear, but
      // candidate length × pattern size): a cap per client bounds what one request can cost.
      .refine((entries) => entries.filter((e) => e.type === 'regex').length <= MAX_REGEX_ENTRIES, `at most ${MAX_REGEX_ENTRIES} regex redirect URIs`),
    allowedScopes: z.array(z.string().refine(isKnownScope, { error: (i) => `unknown scope ${JSON.stringify(i.input)}` })).default(DEFAULT_SCOPES),
    public: z.boolean().default(false),
    tokenEndpointAuthMethod: z.enum(TOKEN_ENDPOINT_AUTH_METHODS).optional(),
    oidcFields: z.array(z.enum(OIDC_FIELDS)).default([]),
    postLogoutRedirectUris: z.array(absoluteHttpUri).max(50).default([]),
    backchannelLogoutUri: outboundUri.nullable().default(null),
    jwks: z
      .object({ keys: z.array(z.record(z.string(), z.unknown())).min(1) })
      .nullable()
      .default(null),
    jwksUri: outboundUri.nullable().default(null),
    /**
     * RFC 8707 resource indicators this client may ask for (exact strings).
     * Empty, the default: none, so a client cannot name arbitrary audiences.
     */
    allowedResources: z.array(resourceUri).max(50).default([]),
    /** PKCE at the authorization endpoint (RFC 9700 §2.1.1). Always for public clients; a confidential client may opt out. */
    requirePkce: z.boolean().default(true),
    isVerified: z.boolean().default(false),
    idTokenSignedResponseAlg: z.enum(ID_TOKEN_ALGS).default('ML-DSA-65'),
    /** OIDC Core §5.3.2: UserInfo answers this client with a JWT signed with this algorithm; null, plain JSON. */
    userinfoSignedResponseAlg: z.enum(ID_TOKEN_ALGS).nullable().default(null),
    /**
     * RFC 9701 §6: the algorithm of this client's signed introspection responses
     * (asked for with Accept: application/token-introspection+jwt); null: RS256.
     */
    introspectionSignedResponseAlg: z.enum(ID_TOKEN_ALGS).nullable().default(null),
    /** RFC 9126 §5: the authorization endpoint accepts this client's requests only through PAR. */
    requirePushedAuthorizationRequests: z.boolean().default(false),
    /** RFC 9101 §10.5: this client's authorization requests come only as signed request objects (by value, by reference or pushed). */
    requireSignedRequestObject: z.boolean().default(false),
    /** The security profile this client is held to (fapi2.ts): `fapi2`, FAPI 2.0 Security Profile; null, none. */
    fapiProfile: z.enum(FAPI_PROFILES).nullable().default(null),
    /**
     * OIDC Dynamic Registration §2: the only algorithm this client's request objects
     * may use (`none`: unsigned only). Null: any signing algorithm offered, or unsigned.
     */
    requestObjectSigningAlg: z.enum(REQUEST_OBJECT_SIGNING_ALG_VALUES).nullable().default(null),
    /** OIDC Dynamic Registration §2: the request_uris Keyflow may fetch this client's request objects from (none: no request_uri). */
    requestUris: z.array(requestUri).max(20).default([]),
    /**
     * JARM: the algorithm of this client's JWT authorization responses (response_mode jwt,
     * query.jwt, …). Null: none registered, so RS256 (JARM's default) when signing.
     */
    authorizationSignedResponseAlg: z.enum(ID_TOKEN_ALGS).nullable().default(null),
    /** The algorithm of this client's access tokens (access-token-alg.ts); null: RS256 (PS256 for FAPI 2.0), or ML-DSA-65 for resources that opted in. */
    accessTokenSignedResponseAlg: z.enum(ID_TOKEN_ALGS).nullable().default(null),
    /** client_credentials (machine-access.ts): the resources this client may get tokens for, acting for itself, and its scopes at each. Operators only. */
    machineAccess: z
      .array(machineAccessEntry)
      .max(20)
      .refine((entries) => new Set(entries.map((e) => e.resource)).size === entries.length, 'names a resource twice')
      .default([]),
    ownerUserId: z.string().nullable().default(null),
    /** RFC 7591 §2: its grant types; absent, authorization_code (grant-types.ts). Without a redirect-based one, it needs no redirect URI. */
    grantTypes: z
      .array(z.string().refine(isClientGrantType, { error: (i) => `unknown grant type ${JSON.stringify(i.input)} (known: ${CLIENT_GRANT_TYPES.join(', ')})` }))
      .min(1)
      .max(10)
      .optional(),
  })
  // Also when other fields have problems, so that every problem is named at once.
  .superRefine(
    (c, ctx) => {
      const machine = Array.isArray(c.machineAccess) && c.machineAccess.length > 0;
      const redirectFlows = !Array.isArray(c.grantTypes) || usesRedirectFlows(c);
      if (Array.isArray(c.redirectUris) && c.redirectUris.length === 0 && !machine && redirectFlows)
        ctx.addIssue({ code: 'custom', path: ['redirectUris'], message: 'at least one redirect URI is required' });
    },
    { when: () => true },
  )
  .transform((c, ctx) => {
    const method = c.tokenEndpointAuthMethod ?? (c.public ? 'none' : 'client_secret_basic');
    if (c.public && method !== 'none') ctx.addIssue({ code: 'custom', message: 'a public client uses token_endpoint_auth_method none' });
    if (!c.public && method === 'none') ctx.addIssue({ code: 'custom', message: 'token_endpoint_auth_method none is only for public clients' });
    if (c.public && !c.requirePkce) ctx.addIssue({ code: 'custom', message: 'public clients always use PKCE (require_pkce cannot be false)' });
    if (c.public && c.machineAccess.length > 0)
      ctx.addIssue({ code: 'custom', message: 'a public client cannot act for itself (machine access needs a confidential client)' });
    if (c.jwks && c.jwksUri) ctx.addIssue({ code: 'custom', message: 'jwks and jwks_uri are mutually exclusive' });
    if (method === 'private_key_jwt' && !c.jwks && !c.jwksUri) {
      ctx.addIssue({ code: 'custom', message: 'private_key_jwt needs jwks or jwks_uri' });
    }
    for (const problem of fapi2ClientProblems({ ...c, tokenEndpointAuthMethod: method })) ctx.addIssue({ code: 'custom', message: problem });
    return { ...c, tokenEndpointAuthMethod: method };
  });
export type NewClientInput = z.input<typeof NewClientInput>;
export type ValidClient = z.output<typeof NewClientInput>;

/** Whether the client authenticates with a shared secret (and so is given one). */
export function usesClientSecret(method: TokenEndpointAuthMethod): boolean {
  return method === 'client_secret_basic' || method === 'client_secret_post';
}

/** The settings validated by the model; a ValidationError naming every problem otherwise. */
export function validClient(input: NewClientInput): ValidClient {
  const parsed = NewClientInput.safeParse(input);
  if (!parsed.success) throw new ValidationError(zodProblems(parsed.error.issues));
  return parsed.data;
}

/** A stored client. Its secret (clients that use one) is kept only as a SHA-256 hash. */
export type ClientDoc = Omit<ValidClient, 'public'> & {
  _id: string;
  public: boolean;
  secretHash: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** When a site admin deactivated the client; null or absent (documents from before) while it is active. */
  deactivatedAt?: Date | null;
} & Partial<ClientExtras>;

/**
 * Whether the client may use the OAuth endpoints at all. The one rule every
 * OAuth endpoint applies through the shared client lookup (cachedClientLookup),
 * and access-token checks through the grant check: a deactivated client is
 * treated like an unknown one. Its owner still sees it on their app pages.
 */
export function isClientActive(client: Pick<ClientDoc, 'deactivatedAt'>): boolean {
  return !client.deactivatedAt;
}

/** Stored beside the model: dynamic registration (RFC 7591/7592) metadata. */
export interface ClientExtras {
  /** SHA-256 of the RFC 7592 registration access token (clients made by dynamic registration). */
  registrationTokenHash: string | null;
  /** Informational: the token endpoint does not check them. */
  grantTypes: string[];
  /** Enforced for the implicit flow's response types alone (response-type.ts); absent: code only. */
  responseTypes: string[];
  clientUri: string | null;
  /** https only (shown on the sign-in and consent pages: see logoOrigin). */
  logoUri: string | null;
  policyUri: string | null;
  tosUri: string | null;
}
