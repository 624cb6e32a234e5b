// Process configuration from environment variables, validated with zod at start.
// Each variable is declared once, below, with its default and a one-line
// description; docs/configuration-reference.md is generated from them, and the
// `Config` the processes read is the type of the mapping from them (configFrom).
import { offeredIdTokenAlgs } from '../model/clients.js';
import { ID_TOKEN_CLAIMS_PLACEMENTS } from '../model/claims.js';
import { resourceProblem } from '../model/resources.js';
import { isLoopbackHost } from '../model/redirect-uri.js';
import { DEFAULT_PASSWORD_HASH_COST } from '../security/password.js';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';

const port = (fallback: number) =>
  z.coerce
    .number({ error: 'must be a port number' })
    .int('must be a whole number')
    .min(1, 'must be between 1 and 65535')
    .max(65535, 'must be between 1 and 65535')
    .default(fallback);

const positiveInt = (fallback: number, max: number) =>
  z.coerce
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(max, `must be at most ${max}`)
    .default(fallback);

/** `on` or `off`, with a default. */
const onOff = (fallback: 'on' | 'off') => z.enum(['on', 'off'], { error: 'must be on or off' }).default(fallback);
/** The cheapest scrypt cost a test suite may ask for (1 MiB a hash). */
const MIN_PASSWORD_HASH_COST = 10;
const hostPort = z.string().regex(/^[A-Za-z0-9.\-[\]:]+:\d{1,5}$/, 'must be host:port, e.g. localhost:7233');

const issuer = z
  .string()
  .default('http://localhost:3000')
  .transform((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute URL such as https://id.example.com' });
      return z.NEVER;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      ctx.addIssue({ code: 'custom', message: 'must use https (or http for local development)' });
    } else if (url.search || url.hash || value.includes('?') || value.includes('#')) {
      // RFC 8414 §2: the issuer has no query or fragment.
      ctx.addIssue({ code: 'custom', message: 'must not have a query or fragment' });
    } else if (url.username || url.password) {
      ctx.addIssue({ code: 'custom', message: 'must not contain credentials' });
    }
    return url.href.replace(/\/$/, '');
  });

/** 32 bytes, as 64 hex characters or base64 / base64url. */
const kek = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value === '') return undefined;
    const bytes = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
    if (bytes.length !== 32) {
      ctx.addIssue({ code: 'custom', message: 'must be 32 random bytes, as 64 hex characters or base64 (openssl rand -base64 32)' });
      return z.NEVER;
    }
    return bytes;
  });

const nonNegativeInt = (fallback: number, max: number) =>
  z.coerce
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(0, 'must be at least 0')
    .max(max, `must be at most ${max}`)
    .default(fallback);

/** Express's `trust proxy`: `none`, or addresses, CIDR ranges and the names loopback, linklocal, uniquelocal. */
const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];
const trustedProxies = z
  .string()
  .default('loopback')
  .transform((value, ctx) => {
    const entries = value
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
    if (entries.length === 1 && entries[0] === 'none') return [];
    for (const entry of entries) {
      const [address, bits, ...rest] = entry.split('/');
      const ok = PROXY_NAMES.includes(entry) || (net.isIP(address!) !== 0 && rest.length === 0 && (bits === undefined || /^\d{1,3}$/.test(bits)));
      if (!ok) ctx.addIssue({ code: 'custom', message: `"${entry}" is not an IP address, a CIDR range, loopback, linklocal or uniquelocal (or use none)` });
    }
    return entries;
  });

/** DNS servers for domain verification: IP or IP:port ([IPv6]:port), comma-separated; empty means the system's. */
const dnsResolvers = z
  .string()
  .default('')
  .transform((value, ctx) => {
    const entries = value
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
    for (const entry of entries) {
      const m = /^\[([0-9a-fA-F:.]+)\]:(\d{1,5})$/.exec(entry) ?? /^([0-9.]+):(\d{1,5})$/.exec(entry);
      const host = m ? m[1]! : entry;
      const portOk = !m || (Number(m[2]) >= 1 && Number(m[2]) <= 65535);
      if (net.isIP(host) === 0 || !portOk) ctx.addIssue({ code: 'custom', message: `"${entry}" must be an IP address, IPv4:port or [IPv6]:port` });
    }
    return entries;
  });

/** Resource indicators (RFC 8707), comma- or space-separated, each an absolute URI without fragment. */
const resourceList = z
  .string()
  .default('')
  .transform((value, ctx) => {
    const entries = [...new Set(value.split(/[\s,]+/).filter(Boolean))];
    for (const entry of entries) {
      const problem = resourceProblem(entry);
      if (problem) ctx.addIssue({ code: 'custom', message: `"${entry}" ${problem}` });
    }
    return entries;
  });

/** The features whose outbound calls the allow-list can admit to internal addresses. */
export const OUTBOUND_FEATURES = ['webhooks', 'backchannel_logout', 'jwks_uri', 'request_uri', 'captcha', 'oauth_sources'] as const;
export type OutboundFeature = (typeof OUTBOUND_FEATURES)[number];

export interface OutboundAllowEntry {
  /** A feature, or '*' for all of them. */
  feature: OutboundFeature | '*';
  /** Lower case; IPv6 without brackets. */
  host: string;
  /** A port, or '*' for every port. */
  port: number | '*';
}

/**
 * A host as the URL parser writes it (lower case, IPv4 dotted, IPv6 compressed),
 * without IPv6 brackets: the form the outbound client compares with URLs and
 * resolved addresses.
 */
function urlHostname(host: string): string | null {
  try {
    return new URL(`http://${host}/`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return null;
  }
}

/** `feature=host:port` entries, comma-separated; feature and port may be `*`; IPv6 in brackets. */
const outboundAllowlist = z
  .string()
  .default('')
  .transform((value, ctx) => {
    const entries: OutboundAllowEntry[] = [];
    for (const raw of value
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean)) {
      const m = /^([a-z_]+|\*)=(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5}|\*)$/.exec(raw);
      const feature = m?.[1];
      const port = m?.[3] === '*' ? '*' : Number(m?.[3]);
      const host = m ? urlHostname(m[2]!) : null;
      if (!m || !host || !(feature === '*' || (OUTBOUND_FEATURES as readonly string[]).includes(feature!)) || (port !== '*' && (port < 1 || port > 65535))) {
        ctx.addIssue({
          code: 'custom',
          message: `"${raw}" must be feature=host:port (feature one of ${OUTBOUND_FEATURES.join(', ')} or *; port a number or *)`,
        });
        continue;
      }
      entries.push({ feature: feature as OutboundAllowEntry['feature'], host, port });
    }
    return entries;
  });

export interface MetricsAddress {
  host: string;
  port: number;
}

/**
 * Where a process serves its /metrics: a port (on loopback) or host:port
 * ([IPv6]:port). Unset: no metrics listener.
 */
const metricsAddr = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined) return null;
    const m = /^\d{1,5}$/.exec(value)
      ? ['', '127.0.0.1', value]
      : (/^\[([0-9a-fA-F:.]+)\]:(\d{1,5})$/.exec(value) ?? /^([A-Za-z0-9.-]+):(\d{1,5})$/.exec(value));
    const port = Number(m?.[2]);
    if (!m || port < 1 || port > 65535) {
      ctx.addIssue({ code: 'custom', message: 'must be a port, host:port or [IPv6]:port, e.g. 127.0.0.1:9464' });
      return z.NEVER;
    }
    return { host: m[1]!, port };
  });

const mongoUri = z.string().regex(/^mongodb(\+srv)?:\/\/\S+$/, 'must be a mongodb:// or mongodb+srv:// connection string');

// The variables, by group, each with its one-line description: the one place
// they are declared. docs/configuration-reference.md is generated from these
// groups (lib/config/reference.ts, `npm run docs:config`), and a unit test
// fails when the checked-in file differs or a variable has no description.

const server = {
  ISSUER: issuer.describe('Public URL of Keyflow, the OAuth/OIDC issuer: https (http only for development), no query or fragment'),
  PORT: port(3000).describe('Port of the api'),
  BIND_ADDRESS: z.string().min(1).default('127.0.0.1').describe('Address the api listens on (`0.0.0.0` in containers)'),
  DATA_DIR: z.string().min(1).default('data').describe("Folder of the embedded servers' data and the generated key-encryption key"),
  LOG_LEVEL: z
    .enum(['debug', 'info', 'warn', 'error'], { error: 'must be debug, info, warn or error' })
    .default('info')
    .describe('How much the api and the worker log (`debug` adds slow MongoDB commands and the stack of a fatal error)'),
};

const temporal = {
  TEMPORAL_ADDRESS: hostPort.optional().describe('`host:port` of a Temporal frontend. Unset: `npm start` runs the embedded Temporal dev server'),
  TEMPORAL_PORT: port(7233).describe('Port of the embedded Temporal dev server'),
  TEMPORAL_UI_PORT: port(8233).describe('Port of the embedded Temporal Web UI'),
  TEMPORAL_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,255}$/, 'must be a Temporal namespace name')
    .default('default')
    .describe('Temporal namespace'),
  TEMPORAL_TASK_QUEUE: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,255}$/, 'must be a task queue name')
    .default('keyflow')
    .describe("Task queue of Keyflow's worker"),
  TEMPORAL_TLS_CA: z
    .string()
    .optional()
    .describe("PEM file of the CA that signed Temporal's server certificate (unset: the system's CAs). Any `TEMPORAL_TLS_*` turns TLS on"),
  TEMPORAL_TLS_CERT: z.string().optional().describe('PEM client certificate, for a Temporal that requires mTLS. Set with `TEMPORAL_TLS_KEY`'),
  TEMPORAL_TLS_KEY: z.string().optional().describe('PEM private key of `TEMPORAL_TLS_CERT`. Set both or neither'),
  TEMPORAL_TLS_SERVER_NAME: z
    .string()
    .regex(/^[A-Za-z0-9.-]{1,253}$/, 'must be a host name')
    .optional()
    .describe("The name to check Temporal's certificate against, when it differs from the `TEMPORAL_ADDRESS` host"),
  // Sent as a header value: visible ASCII only.
  TEMPORAL_API_KEY: z
    .string()
    .regex(/^[\x21-\x7e]{1,8192}$/, 'must be printable ASCII without spaces')
    .optional()
    .describe('Sent as `Authorization: Bearer …` on every Temporal call, always over TLS. Never logged or echoed'),
};

const mongo = {
  MONGODB_URI: mongoUri.optional().describe('MongoDB connection string. Unset: `npm start` runs the embedded FerretDB'),
  MONGODB_PORT: port(27017).describe('Port of the embedded FerretDB'),
  MONGODB_DATABASE: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,63}$/, 'must be a database name (letters, digits, _ and -)')
    .default('keyflow')
    .describe('Database name'),
};

const keys = {
  KEYFLOW_KEK: kek.describe(
    'Key-encryption key for signing keys and secrets at rest: 32 bytes as base64 or 64 hex characters. Unset: `DATA_DIR/kek.key`, generated once. The same on every process',
  ),
  KEYFLOW_MLDSA: z
    .enum(['auto', 'native', 'noble'], { error: 'must be auto, native or noble' })
    .default('auto')
    .describe('ML-DSA-65 implementation: `native` (Node 24 / OpenSSL 3.5), `noble` (`@noble/post-quantum`), or `auto` (native when available)'),
  ML_DSA_SIGNING: z
    .enum(['on', 'off'], { error: 'must be on or off' })
    .default('on')
    .describe(
      '`off` withholds ML-DSA-65 (JWKS, discovery and tokens: RS256, PS256 and ES256 only) for relying parties that refuse a JWK Set with an `AKP` key',
    ),
};

const passwords = {
  PASSWORD_HASH_COST: z.coerce
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(MIN_PASSWORD_HASH_COST, `must be at least ${MIN_PASSWORD_HASH_COST}`)
    .max(20, 'must be at most 20 (1 GiB a hash)')
    .default(DEFAULT_PASSWORD_HASH_COST)
    .describe(
      `scrypt's cost as log2 N (memory: 2^cost KiB; ${DEFAULT_PASSWORD_HASH_COST} = 32 MiB, OWASP asks 17 = 128 MiB). Raising it re-hashes each password at its next sign-in. Below ${DEFAULT_PASSWORD_HASH_COST} only with an http://localhost issuer (test suites)`,
    ),
};

const protocol = {
  ID_TOKEN_CLAIMS: z
    .enum(ID_TOKEN_CLAIMS_PLACEMENTS, { error: 'must be scopes or requested' })
    .default('scopes')
    .describe("Where the scopes' standard claims go: `scopes`, the ID token too; `requested`, UserInfo only (the ID token those asked for with `claims`)"),
  CLIENT_ASSERTION_AUDIENCE: z
    .enum(['issuer', 'issuer-or-token-endpoint'], { error: 'must be issuer or issuer-or-token-endpoint' })
    .default('issuer')
    .describe("The `aud` a `private_key_jwt` assertion may name, as one string: the issuer alone, or also the token endpoint's URL"),
  REGISTRATION_REQUIRE_PKCE: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .default('true')
    .describe('Whether a confidential client registered dynamically without `require_pkce` must use PKCE (public clients always must)'),
  ACCESS_TOKEN_ML_DSA_RESOURCES: resourceList.describe(
    'Resources (RFC 8707 resource indicators) whose servers verify ML-DSA-65: an access token for such resources alone is signed ML-DSA-65 (RS256 otherwise, unless the client names an `access_token_signed_response_alg`)',
  ),
  FAPI_PROFILE_DEFAULT: z
    .enum(['none', 'fapi2'], { error: 'must be none or fapi2' })
    .default('none')
    .describe('The security profile of a client registered or created without `fapi_profile`: `fapi2` holds every new client to the FAPI 2.0 Security Profile'),
};

const lifetimes = {
  REFRESH_TOKEN_TTL_SECONDS: positiveInt(30 * 24 * 3600, 10 * 365 * 24 * 3600).describe('Absolute lifetime of a refresh family; rotation never extends it'),
  REFRESH_RETRY_WINDOW_SECONDS: nonNegativeInt(30, 300).describe(
    'How long after a rotation the token it superseded may be presented again by the same client for a fresh successor, instead of counting as reuse (`0`: never); confidential clients and DPoP-bound tokens',
  ),
  REFRESH_RETRY_WINDOW_PUBLIC_SECONDS: nonNegativeInt(0, 300).describe(
    "The retry window of a public client's refresh token that is not DPoP-bound, which nothing but its possession protects (`0`: never, every superseded token is reuse)",
  ),
  DEVICE_CODE_TTL_SECONDS: positiveInt(600, 24 * 3600).describe("Lifetime of a device flow's `device_code` and user code (`expires_in`)"),
  STEP_UP_CHALLENGE_TTL_SECONDS: positiveInt(600, 3600).describe('How long a step-up 2FA challenge waits for the user (its 2FA code then lives 5 minutes)'),
  SESSION_IDLE_MINUTES: positiveInt(12 * 60, 14 * 24 * 60).describe(
    'A signed-in session ends after this long without a request (besides its absolute 14 days)',
  ),
  REAUTH_MAX_AGE_SECONDS: positiveInt(900, 24 * 3600).describe(
    'How recent a sign-in must be for sensitive account and app changes (over the API, with `acr=mfa`)',
  ),
  PAT_MAX_LIFETIME_DAYS: positiveInt(365, 3650).describe(
    'Longest lifetime of a personal access token; stored tokens beyond it are shortened when the api starts',
  ),
};

const limits = {
  TRUSTED_PROXIES: trustedProxies.describe(
    'The reverse proxies whose `X-Forwarded-For` names the client: `none`, or comma-separated IP addresses, CIDR ranges, `loopback`, `linklocal`, `uniquelocal`',
  ),
  SIGNIN_LIMIT_PER_ACCOUNT: positiveInt(10, 10_000).describe('Failed sign-ins per account (password) or per user (second factor) per 15 minutes; then 429'),
  SIGNIN_LIMIT_PER_IP: positiveInt(30, 1_000_000).describe('Failed sign-ins per client address per 15 minutes; each window that ran out halves the next'),
  SIGNIN_LIMIT_GLOBAL: positiveInt(1000, 10_000_000).describe(
    'Failed sign-ins on the whole site per 15 minutes; beyond, the captcha for everyone (no captcha provider: password sign-ins refused)',
  ),
  SIGNIN_CAPTCHA_AFTER: nonNegativeInt(3, 10_000).describe(
    'Failures of an account or address after which the sign-in form asks for the captcha (with a `captcha_provider`; `0`: always)',
  ),
  REQUEST_LIMIT_PER_IP: positiveInt(60, 1_000_000).describe(
    'Requests per minute per client address to device authorization, PAR, step-up info and WebFinger (each on its own), and anonymous sessions',
  ),
  REQUEST_LIMIT_PER_CLIENT: positiveInt(300, 1_000_000).describe('Device authorizations, and separately pushed authorization requests, per minute per client'),
};

const outbound = {
  OUTBOUND_ALLOWLIST: outboundAllowlist.describe(
    'Comma-separated `feature=host:port` entries that let outbound calls reach an internal address or use plain http, e.g. `webhooks=hooks.internal:8443`',
  ),
  OUTBOUND_TIMEOUT_MS: positiveInt(10_000, 60_000).describe(
    'Timeout of every outbound call but webhook deliveries (back-channel logout, `jwks_uri`, captcha, OAuth sources…)',
  ),
  OUTBOUND_MAX_RESPONSE_BYTES: positiveInt(1024 * 1024, 16 * 1024 * 1024).describe('Largest response body an outbound call reads'),
  WEBHOOK_TIMEOUT_MS: positiveInt(10_000, 60_000).describe('How long a webhook receiver has to answer a delivery before it is recorded as a `timeout` failure'),
  DEPENDENCY_TIMEOUT_MS: positiveInt(5_000, 60_000).describe(
    "The longest one MongoDB or Temporal call of the api on a request's path may take; past it the request is answered 503 with `Retry-After`",
  ),
};

const domains = {
  DNS_RESOLVERS: dnsResolvers.describe(
    "Comma-separated DNS servers the worker asks for domain verification TXT records: `IP`, `IPv4:port` or `[IPv6]:port`. Empty: the system's",
  ),
  DOMAIN_VERIFICATION_FIRST_INTERVAL_SECONDS: positiveInt(30, 24 * 3600).describe("Wait after a domain's first DNS check; each later wait doubles"),
  DOMAIN_VERIFICATION_MAX_INTERVAL_SECONDS: positiveInt(3600, 24 * 3600).describe('Longest wait between two checks'),
  DOMAIN_VERIFICATION_DEADLINE_SECONDS: positiveInt(7 * 24 * 3600, 90 * 24 * 3600).describe(
    "How long a domain's verification keeps checking before it gives up",
  ),
};

const housekeeping = {
  HOUSEKEEPING_INTERVAL_MINUTES: positiveInt(15, 24 * 60).describe(
    'How often the frequent housekeeping pass purges expired documents (`refresh_tokens`: the daily pass, at 03:00 UTC)',
  ),
  HOUSEKEEPING_BATCH_SIZE: positiveInt(500, 10_000).describe('Documents deleted per batch (at most 20 batches per collection and run; 100 in the daily pass)'),
};

const audit = {
  AUDIT_TRAIL: z
    .enum(['on', 'off'])
    .default('on')
    .describe(
      'off: the api and the worker record no audit event (they warn at start). Only to measure what the audit trail costs (`npm run bench -- compare` against an audited run); never in production',
    ),
  AUDIT_RETENTION_DAYS: nonNegativeInt(0, 100 * 365).describe(
    'How long audit records are kept; older sealed batches are deleted daily and the chain starts at a signed checkpoint. 0: kept forever',
  ),
  AUDIT_SEAL_INTERVAL_SECONDS: positiveInt(5, 300).describe(
    'How often the worker seals new audit records into the signed chain (records are searchable before)',
  ),
  AUDIT_STREAM: z
    .string()
    .default('off')
    .refine((v) => v === 'off' || v === 'stdout' || v.startsWith('/'), { error: 'must be off, stdout or an absolute file path' })
    .describe('Where the worker writes every sealed audit record as a JSON line, for a log shipper: `off`, `stdout` or an absolute file path (appended to)'),
};

const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
const otlpProtocol = z
  .string()
  .optional()
  .refine((v) => v === undefined || (OTLP_PROTOCOLS as readonly string[]).includes(v), {
    error: 'must be http/protobuf or http/json (Keyflow exports over OTLP/HTTP; a collector listens for it on port 4318)',
  });
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional();

const observability = {
  LOG_FORMAT: z
    .enum(['text', 'json'])
    .default('text')
    .describe('Log lines as `text` (time, level, message, key=value) or `json` (one object per line, for a log shipper)'),
  ACCESS_LOG: onOff('on').describe('One log line per HTTP request the api answers (method, route, status, duration, client id), at level info'),
  METRICS_ADDR: metricsAddr.describe(
    'Where the api serves Prometheus `/metrics` on a listener of its own: a port (on `127.0.0.1`), `host:port` or `[IPv6]:port`. Unset: off',
  ),
  WORKER_METRICS_ADDR: metricsAddr.describe('The same for the worker. `npm start` passes both to both processes: give each its own port'),
  WORKER_HEALTH_ADDR: metricsAddr.describe(
    'Where the worker answers `/healthz` and `/readyz` (for docker-compose and Kubernetes probes), on a listener of its own. Unset: off',
  ),
  OTEL_TRACES_EXPORTER: z
    .enum(['otlp', 'none'])
    .optional()
    .describe(
      '`otlp` sends traces (to `http://localhost:4318` unless an endpoint is set); `none` turns tracing off even with an endpoint. Unset: on when an endpoint is set',
    ),
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl.describe(
    "The OTLP/HTTP collector's base URL (`/v1/traces` is added). Unset, with no traces endpoint either: no tracing, at no cost",
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl.describe('The full URL traces are posted to (overrides the base URL)'),
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol.describe('`http/protobuf` (the default) or `http/json`'),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol.describe('The same, for traces only'),
  OTEL_SERVICE_NAME: z
    .string()
    .max(100)
    .optional()
    .describe('The service name traces carry. Unset: `keyflow-api` for the api, `keyflow-worker` for the worker'),
  OTEL_TRACES_SAMPLER: z
    .enum(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'])
    .default('parentbased_always_on')
    .describe("Which traces are kept (OpenTelemetry's sampler names)"),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional().describe('The ratio the `*traceidratio` samplers keep, from 0 to 1'),
  OTEL_SDK_DISABLED: z.enum(['true', 'false']).default('false').describe('`true`: no tracing whatever else is set'),
  TRACE_CLIENT_ADDRESS: onOff('off').describe("`on` adds the client's address and user agent to request spans (personal data: off unless you need it)"),
};

/** The variables in the reference's order, under its headings. */
export const VARIABLE_GROUPS: readonly { title: string; variables: Record<string, z.ZodType> }[] = [
  { title: 'The api and its data', variables: server },
  { title: 'Temporal', variables: temporal },
  { title: 'MongoDB', variables: mongo },
  { title: 'Signing keys and the key-encryption key', variables: keys },
  { title: 'Passwords', variables: passwords },
  { title: 'Protocol choices', variables: protocol },
  { title: 'Lifetimes', variables: lifetimes },
  { title: 'Limits and client addresses', variables: limits },
  { title: 'Outbound calls and timeouts', variables: outbound },
  { title: 'Domain verification', variables: domains },
  { title: 'Housekeeping', variables: housekeeping },
  { title: 'Audit trail', variables: audit },
  { title: 'Observability: logs, metrics, traces, health', variables: observability },
];

const EnvSchema = z.object({
  ...server,
  ...temporal,
  ...mongo,
  ...keys,
  ...passwords,
  ...protocol,
  ...lifetimes,
  ...limits,
  ...outbound,
  ...domains,
  ...housekeeping,
  ...audit,
  ...observability,
});

/** Every variable the configuration reads from the environment. */
export const ENV_VARIABLE_NAMES: readonly string[] = Object.keys(EnvSchema.shape);

type Env = z.infer<typeof EnvSchema>;

/** Temporal's TLS settings (a CA, a client certificate for mTLS): absolute paths of readable files. */
interface TemporalTls {
  certFile?: string;
  keyFile?: string;
  caFile?: string;
  serverName?: string;
}

/**
 * The configuration the processes read, from the parsed variables: the one
 * place each field is defined (its variable's meaning and default are in the
 * schema above; `Config` is this function's type).
 */
function configFrom(e: Env, cwd: string, tls: TemporalTls | null) {
  return {
    issuer: e.ISSUER,
    port: e.PORT,
    bindAddress: e.BIND_ADDRESS,
    dataDir: path.resolve(cwd, e.DATA_DIR),
    temporal: {
      address: e.TEMPORAL_ADDRESS ?? `127.0.0.1:${e.TEMPORAL_PORT}`,
      /** TEMPORAL_ADDRESS unset: `npm start` runs the embedded dev server. */
      embedded: e.TEMPORAL_ADDRESS === undefined,
      port: e.TEMPORAL_PORT,
      uiPort: e.TEMPORAL_UI_PORT,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      tls,
      /** Sent as `Authorization: Bearer …` on every call (over TLS); never logged or echoed. */
      apiKey: e.TEMPORAL_API_KEY,
    },
    mongo: {
      uri: e.MONGODB_URI ?? `mongodb://127.0.0.1:${e.MONGODB_PORT}/`,
      /** MONGODB_URI unset: `npm start` runs the embedded FerretDB. */
      embedded: e.MONGODB_URI === undefined,
      port: e.MONGODB_PORT,
      database: e.MONGODB_DATABASE,
    },
    /** undefined: the generated key file under DATA_DIR. */
    kek: e.KEYFLOW_KEK,
    mldsa: e.KEYFLOW_MLDSA,
    /** scrypt's log2 N for new password hashes (setPasswordHashCost at start). */
    passwordHashCost: e.PASSWORD_HASH_COST,
    /** ID token algorithms offered, the default of new clients first. */
    idTokenAlgs: offeredIdTokenAlgs(e.ML_DSA_SIGNING === 'on'),
    mlDsaResources: e.ACCESS_TOKEN_ML_DSA_RESOURCES as readonly string[],
    idTokenClaims: e.ID_TOKEN_CLAIMS,
    clientAssertionAudience: e.CLIENT_ASSERTION_AUDIENCE,
    registrationRequirePkce: e.REGISTRATION_REQUIRE_PKCE === 'true',
    fapiProfileDefault: e.FAPI_PROFILE_DEFAULT === 'fapi2' ? ('fapi2' as const) : null,
    logLevel: e.LOG_LEVEL,
    housekeeping: { intervalMinutes: e.HOUSEKEEPING_INTERVAL_MINUTES, batchSize: e.HOUSEKEEPING_BATCH_SIZE },
    audit: {
      recording: e.AUDIT_TRAIL === 'on',
      retentionDays: e.AUDIT_RETENTION_DAYS,
      sealIntervalMs: e.AUDIT_SEAL_INTERVAL_SECONDS * 1000,
      stream: e.AUDIT_STREAM,
    },
    refreshTokenTtlMs: e.REFRESH_TOKEN_TTL_SECONDS * 1000,
    deviceCodeTtlMs: e.DEVICE_CODE_TTL_SECONDS * 1000,
    stepUpChallengeTtlMs: e.STEP_UP_CHALLENGE_TTL_SECONDS * 1000,
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    dependencyTimeoutMs: e.DEPENDENCY_TIMEOUT_MS,
    dnsResolvers: e.DNS_RESOLVERS,
    domainVerification: {
      firstIntervalMs: e.DOMAIN_VERIFICATION_FIRST_INTERVAL_SECONDS * 1000,
      maxIntervalMs: Math.max(e.DOMAIN_VERIFICATION_FIRST_INTERVAL_SECONDS, e.DOMAIN_VERIFICATION_MAX_INTERVAL_SECONDS) * 1000,
      deadlineMs: e.DOMAIN_VERIFICATION_DEADLINE_SECONDS * 1000,
    },
    metrics: { api: e.METRICS_ADDR, worker: e.WORKER_METRICS_ADDR },
    workerHealth: e.WORKER_HEALTH_ADDR,
    logFormat: e.LOG_FORMAT,
    accessLog: e.ACCESS_LOG === 'on',
    tracing: tracingFrom(e),
    outbound: { allow: e.OUTBOUND_ALLOWLIST, timeoutMs: e.OUTBOUND_TIMEOUT_MS, maxResponseBytes: e.OUTBOUND_MAX_RESPONSE_BYTES },
    trustedProxies: e.TRUSTED_PROXIES,
    limits: {
      signInPerAccount: e.SIGNIN_LIMIT_PER_ACCOUNT,
      signInPerIp: e.SIGNIN_LIMIT_PER_IP,
      signInGlobal: e.SIGNIN_LIMIT_GLOBAL,
      signInCaptchaAfter: e.SIGNIN_CAPTCHA_AFTER,
      requestsPerIp: e.REQUEST_LIMIT_PER_IP,
      requestsPerClient: e.REQUEST_LIMIT_PER_CLIENT,
    },
    sessionIdleMs: e.SESSION_IDLE_MINUTES * 60_000,
    reauthMaxAgeMs: e.REAUTH_MAX_AGE_SECONDS * 1000,
    patMaxLifetimeMs: e.PAT_MAX_LIFETIME_DAYS * 24 * 3600_000,
    refreshRetryWindowMs: e.REFRESH_RETRY_WINDOW_SECONDS * 1000,
    refreshRetryWindowPublicMs: e.REFRESH_RETRY_WINDOW_PUBLIC_SECONDS * 1000,
  };
}

/**
 * Tracing's settings, or null when no exporter is set (then nothing is traced
 * and no OpenTelemetry SDK is loaded). The OTLP exporter also reads
 * OTEL_EXPORTER_OTLP_HEADERS and timeouts from the environment itself.
 */
function tracingFrom(e: Env) {
  const exporter = e.OTEL_TRACES_EXPORTER ?? (e.OTEL_EXPORTER_OTLP_ENDPOINT || e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? 'otlp' : 'none');
  if (e.OTEL_SDK_DISABLED === 'true' || exporter === 'none') return null;
  const base = (e.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318').replace(/\/+$/, '');
  return {
    url: e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${base}/v1/traces`,
    protocol: (e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? e.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf') as (typeof OTLP_PROTOCOLS)[number],
    /** undefined: the process's own default name. */
    serviceName: e.OTEL_SERVICE_NAME,
    sampler: e.OTEL_TRACES_SAMPLER,
    samplerRatio: e.OTEL_TRACES_SAMPLER_ARG ?? 1,
    /** Client address and user agent on request spans (opt-in: personal data). */
    clientAddress: e.TRACE_CLIENT_ADDRESS === 'on',
  };
}

/** What every process is configured with: derived from the schema, through configFrom. */
export type Config = ReturnType<typeof configFrom>;
export type MlDsaMode = Config['mldsa'];
export type LogLevel = Config['logLevel'];

export type ConfigResult = { ok: true; config: Config } | { ok: false; errors: string[] };

/** Parses an environment into a Config, or into one readable line per problem. */
export function parseConfig(env: NodeJS.ProcessEnv, cwd = process.cwd()): ConfigResult {
  // Empty strings count as unset, as they do in most .env tooling.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    return {
      ok: false,
      errors: parsed.error.issues.map((issue) => {
        const name = issue.path.join('.');
        const raw = name && name !== 'KEYFLOW_KEK' && name !== 'TEMPORAL_API_KEY' ? cleaned[name] : undefined; // never echo a secret
        return `${name}: ${issue.message}${raw !== undefined ? ` (got ${JSON.stringify(raw)})` : ''}`;
      }),
    };
  }
  const e = parsed.data;
  if (e.PASSWORD_HASH_COST < DEFAULT_PASSWORD_HASH_COST && !isDevelopmentIssuer(e.ISSUER)) {
    return {
      ok: false,
      errors: [
        `PASSWORD_HASH_COST: below ${DEFAULT_PASSWORD_HASH_COST} only with an http://localhost or http://127.0.0.1 issuer, for test suites (got ${e.PASSWORD_HASH_COST})`,
      ],
    };
  }
  const temporalTls = temporalTlsFiles(e, cwd);
  if (!temporalTls.ok) return { ok: false, errors: temporalTls.errors };
  return { ok: true, config: configFrom(e, cwd, temporalTls.tls) };
}

/** Whether the issuer is plain http on this machine: a development or test setup, where cheaper password hashes may save a test suite's time. */
export function isDevelopmentIssuer(issuer: string): boolean {
  const url = new URL(issuer);
  return url.protocol === 'http:' && isLoopbackHost(url.hostname);
}

/**
 * The Temporal TLS settings, their files resolved against `cwd` and checked
 * readable now, so a wrong path stops a process at start with one line rather
 * than at its first connection.
 */
function temporalTlsFiles(e: Env, cwd: string): { ok: true; tls: TemporalTls | null } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  const file = (name: 'TEMPORAL_TLS_CERT' | 'TEMPORAL_TLS_KEY' | 'TEMPORAL_TLS_CA'): string | undefined => {
    const value = e[name];
    if (value === undefined) return undefined;
    const resolved = path.resolve(cwd, value);
    const problem = unreadable(resolved);
    if (problem) errors.push(`${name}: cannot read ${resolved} (${problem})`);
    return resolved;
  };
  const tls: TemporalTls = {
    certFile: file('TEMPORAL_TLS_CERT'),
    keyFile: file('TEMPORAL_TLS_KEY'),
    caFile: file('TEMPORAL_TLS_CA'),
    serverName: e.TEMPORAL_TLS_SERVER_NAME,
  };
  if (!tls.certFile !== !tls.keyFile) {
    errors.push(
      `${tls.certFile ? 'TEMPORAL_TLS_KEY' : 'TEMPORAL_TLS_CERT'}: TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together (the client certificate and its private key)`,
    );
  }
  const configured = Object.values(tls).some((v) => v !== undefined);
  if ((configured || e.TEMPORAL_API_KEY !== undefined) && e.TEMPORAL_ADDRESS === undefined) {
    errors.push('TEMPORAL_ADDRESS: must be set with TEMPORAL_TLS_* or TEMPORAL_API_KEY (the embedded Temporal dev server has neither TLS nor API keys)');
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, tls: configured ? tls : null };
}

/** Why a file cannot be read, or null when it can. */
function unreadable(file: string): string | null {
  try {
    if (!fs.statSync(file).isFile()) return 'not a file';
    fs.accessSync(file, fs.constants.R_OK);
    return null;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (code ?? 'unreadable');
  }
}

/** For process entry points: the config, or one line per problem on stderr and exit code 1. */
export function loadConfigOrExit(processName: string, env: NodeJS.ProcessEnv = process.env): Config {
  const result = parseConfig(env);
  if (result.ok) return result.config;
  for (const line of result.errors) console.error(`${processName}: invalid configuration: ${line}`);
  process.exit(1);
}
