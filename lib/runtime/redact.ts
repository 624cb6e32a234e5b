// The one redaction rule every log line passes through, in both formats
// (log.ts): a safety net under the rule that callers pass ids and outcomes,
// never secrets. Applied to a line's fields (nested ones too) and its message:
//   - a field whose key names a secret is replaced by "[redacted]" (secretKey);
//   - a string that holds a JWT/JWE, a `Bearer`/`Basic`/`DPoP` credential or an
//     email address (a user's, or `user:password@host` in a URL) is replaced,
//     whatever its key (secretValue);
//   - an Error keeps its message only (and its stack at level debug).

export const REDACTED = '[redacted]';

/** A key is secret when any of its words is one of these (`clientSecret`, `password_hash`, `Set-Cookie`). */
const SECRET_ANYWHERE = new Set([
  'password',
  'passwd',
  'passphrase',
  'secret',
  'secrets',
  'cookie',
  'cookies',
  'credential',
  'credentials',
  'otp',
  'totp',
  'hotp',
  'otpauth',
]);

/**
 * …or when its last word is one of these (`accessToken`, `code`,
 * `clientAssertion`, `codeVerifier`, `privateKey`, `kek`, `tokenHash`), but
 * not `tokenType`, `codeChallengeMethod`, `keyId`, `kekSource`, which
 * describe a secret without holding it.
 */
const SECRET_LAST = new Set(['token', 'tokens', 'code', 'codes', 'assertion', 'authorization', 'verifier', 'key', 'jwt', 'jwe', 'jwk', 'kek', 'hash', 'pin']);

/** `code` after one of these is a status or an error's name, not an authorization or one-time code (`statusCode`, `exitCode`). */
const NOT_A_SECRET_CODE = new Set([
  'status',
  'http',
  'exit',
  'error',
  'err',
  'response',
  'reason',
  'signal',
  'result',
  'return',
  'country',
  'language',
  'currency',
]);

/** `accessToken`, `ACCESS_TOKEN`, `x-access-token`, `HTTPStatusCode` → lower-case words. */
export function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Whether a field named `key` holds a secret. */
export function secretKey(key: string): boolean {
  const words = keyWords(key);
  const last = words.at(-1);
  if (last === undefined) return false;
  if (words.some((w) => SECRET_ANYWHERE.has(w))) return true;
  if (!SECRET_LAST.has(last)) return false;
  return !(last === 'code' && words.length > 1 && NOT_A_SECRET_CODE.has(words.at(-2)!));
}

// A compact JWS/JWT (three parts) or JWE (five): base64url of a JSON header, `eyJ`.
const JWT = /eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*/;
const CREDENTIAL = /\b(?:Bearer|Basic|DPoP)\s+[A-Za-z0-9._~+/=-]{8,}/i;
// A mailbox, or a URL's `user:password@host` (not a masked `user:****@host`).
const EMAIL = /(?<![\w.%+*-])[A-Za-z0-9][\w.%+-]*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/;

/** Whether a string holds a token, credential or email address, wherever it is logged. */
export function secretValue(value: string): boolean {
  return JWT.test(value) || CREDENTIAL.test(value) || EMAIL.test(value);
}

const MAX_DEPTH = 6;

/** `value` fit for a log line: secrets replaced, Errors reduced to their message (and stack with `stacks`). */
export function redactValue(value: unknown, stacks = false, depth = 0): unknown {
  if (typeof value === 'string') return secretValue(value) ? REDACTED : value;
  if (value instanceof Error) {
    const message = redactValue(value.message, false, depth);
    return stacks && value.stack ? { message, stack: redactValue(value.stack, false, depth) } : message;
  }
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (value === null || typeof value !== 'object') return value;
  if (ArrayBuffer.isView(value)) return `[${value.byteLength} bytes]`;
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (Array.isArray(value)) return value.map((v) => redactValue(v, stacks, depth + 1));
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
  return redactFields(value as Record<string, unknown>, stacks, depth + 1);
}

/** The fields of a log line, redacted; undefined values dropped. */
export function redactFields(fields: Record<string, unknown>, stacks = false, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    const safe = value === undefined ? undefined : secretKey(key) ? REDACTED : redactValue(value, stacks, depth);
    if (safe !== undefined) out[key] = safe;
  }
  return out;
}
