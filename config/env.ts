// Process configuration from environment variables, validated with zod at start.
// Every variable is documented in the README's configuration table; keep both in step.
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
  z.coerce.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').max(max, `must be at most ${max}`).default(fallback);

const hostPort = z
  .string()
  .regex(/^[A-Za-z0-9.\-[\]:]+:\d{1,5}$/, 'must be host:port, e.g. localhost:7233');

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

const mongoUri = z
  .string()
  .regex(/^mongodb(\+srv)?:\/\/\S+$/, 'must be a mongodb:// or mongodb+srv:// connection string');

const EnvSchema = z.object({
  ISSUER: issuer,
  PORT: port(3000),
  BIND_ADDRESS: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('data'),
  TEMPORAL_ADDRESS: hostPort.optional(),
  TEMPORAL_PORT: port(7233),
  TEMPORAL_UI_PORT: port(8233),
  TEMPORAL_NAMESPACE: z.string().regex(/^[A-Za-z0-9._-]{1,255}$/, 'must be a Temporal namespace name').default('default'),
  TEMPORAL_TASK_QUEUE: z.string().regex(/^[A-Za-z0-9._:-]{1,255}$/, 'must be a task queue name').default('keyflow'),
  MONGODB_URI: mongoUri.optional(),
  MONGODB_PORT: port(27017),
  MONGODB_DATABASE: z.string().regex(/^[A-Za-z0-9_-]{1,63}$/, 'must be a database name (letters, digits, _ and -)').default('keyflow'),
  KEYFLOW_KEK: kek,
  KEYFLOW_MLDSA: z.enum(['auto', 'native', 'noble'], { error: 'must be auto, native or noble' }).default('auto'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error'], { error: 'must be debug, info, warn or error' }).default('info'),
  REFRESH_TOKEN_TTL_SECONDS: positiveInt(30 * 24 * 3600, 10 * 365 * 24 * 3600),
  DEVICE_CODE_TTL_SECONDS: positiveInt(600, 24 * 3600),
  STEP_UP_CHALLENGE_TTL_SECONDS: positiveInt(600, 3600),
  WEBHOOK_TIMEOUT_MS: positiveInt(10_000, 60_000),
  OUTBOUND_ALLOWLIST: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((h) => h.trim().toLowerCase().replace(/^\[|\]$/g, '')).filter(Boolean)),
  OUTBOUND_TIMEOUT_MS: positiveInt(10_000, 60_000),
  OUTBOUND_MAX_RESPONSE_BYTES: positiveInt(1024 * 1024, 16 * 1024 * 1024),
  HOUSEKEEPING_INTERVAL_MINUTES: positiveInt(15, 24 * 60),
  HOUSEKEEPING_BATCH_SIZE: positiveInt(500, 10_000),
});

export type MlDsaMode = 'auto' | 'native' | 'noble';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Config {
  issuer: string;
  port: number;
  bindAddress: string;
  dataDir: string;
  temporal: {
    address: string;
    /** true when TEMPORAL_ADDRESS is unset: `npm start` runs the embedded dev server. */
    embedded: boolean;
    port: number;
    uiPort: number;
    namespace: string;
    taskQueue: string;
  };
  mongo: {
    uri: string;
    /** true when MONGODB_URI is unset: `npm start` runs the embedded FerretDB. */
    embedded: boolean;
    port: number;
    database: string;
  };
  /** Key-encryption key from KEYFLOW_KEK; undefined means "use the generated file under DATA_DIR". */
  kek: Buffer | undefined;
  mldsa: MlDsaMode;
  logLevel: LogLevel;
  housekeeping: { intervalMinutes: number; batchSize: number };
  outbound: { allowHosts: string[]; timeoutMs: number; maxResponseBytes: number };
  /** Absolute lifetime of a refresh family; rotation never extends it. */
  refreshTokenTtlMs: number;
  /** Lifetime of a device_code and its user code (RFC 8628 expires_in). */
  deviceCodeTtlMs: number;
  /** How long a step-up 2FA challenge waits for the user. */
  stepUpChallengeTtlMs: number;
  /** How long a webhook receiver has to answer a delivery. */
  webhookTimeoutMs: number;
}

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
        const raw = name && name !== 'KEYFLOW_KEK' ? cleaned[name] : undefined; // never echo the KEK
        return `${name}: ${issue.message}${raw !== undefined ? ` (got ${JSON.stringify(raw)})` : ''}`;
      }),
    };
  }
  const e = parsed.data;
  return {
    ok: true,
    config: {
      issuer: e.ISSUER,
      port: e.PORT,
      bindAddress: e.BIND_ADDRESS,
      dataDir: path.resolve(cwd, e.DATA_DIR),
      temporal: {
        address: e.TEMPORAL_ADDRESS ?? `127.0.0.1:${e.TEMPORAL_PORT}`,
        embedded: e.TEMPORAL_ADDRESS === undefined,
        port: e.TEMPORAL_PORT,
        uiPort: e.TEMPORAL_UI_PORT,
        namespace: e.TEMPORAL_NAMESPACE,
        taskQueue: e.TEMPORAL_TASK_QUEUE,
      },
      mongo: {
        uri: e.MONGODB_URI ?? `mongodb://127.0.0.1:${e.MONGODB_PORT}/`,
        embedded: e.MONGODB_URI === undefined,
        port: e.MONGODB_PORT,
        database: e.MONGODB_DATABASE,
      },
      kek: e.KEYFLOW_KEK,
      mldsa: e.KEYFLOW_MLDSA,
      logLevel: e.LOG_LEVEL,
      housekeeping: { intervalMinutes: e.HOUSEKEEPING_INTERVAL_MINUTES, batchSize: e.HOUSEKEEPING_BATCH_SIZE },
      refreshTokenTtlMs: e.REFRESH_TOKEN_TTL_SECONDS * 1000,
      deviceCodeTtlMs: e.DEVICE_CODE_TTL_SECONDS * 1000,
      stepUpChallengeTtlMs: e.STEP_UP_CHALLENGE_TTL_SECONDS * 1000,
      webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
      outbound: { allowHosts: e.OUTBOUND_ALLOWLIST, timeoutMs: e.OUTBOUND_TIMEOUT_MS, maxResponseBytes: e.OUTBOUND_MAX_RESPONSE_BYTES },
    },
  };
}

/** For process entry points: the config, or one line per problem on stderr and exit code 1. */
export function loadConfigOrExit(processName: string, env: NodeJS.ProcessEnv = process.env): Config {
  const result = parseConfig(env);
  if (result.ok) return result.config;
  for (const line of result.errors) console.error(`${processName}: invalid configuration: ${line}`);
  process.exit(1);
}
