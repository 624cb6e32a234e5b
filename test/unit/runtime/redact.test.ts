// The one redaction rule of the logs (lib/runtime/redact.ts): which keys name
// a secret (and which, like statusCode, only look as if they did), which
// values are secrets whatever their key, and what is left of an Error.
import { REDACTED, redactFields, redactValue, secretKey, secretValue } from '../../../lib/runtime/redact.js';

const JWT = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1In0.c2lnbmF0dXJlX2J5dGVz';
const JWE = 'eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ.a2V5.aXY.Y2lwaGVy.dGFn';

describe('secret keys', () => {
  it.each([
    'token',
    'accessToken',
    'access_token',
    'refresh_token',
    'id_token',
    'ACCESS_TOKEN',
    'subject_token',
    'tokens',
    'secret',
    'clientSecret',
    'client_secret',
    'captcha_secret_key',
    'password',
    'newPassword',
    'passwordHash',
    'passphrase',
    'code',
    'authorizationCode',
    'user_code',
    'backupCodes',
    'code_verifier',
    'codeVerifier',
    'client_assertion',
    'assertion',
    'cookie',
    'Set-Cookie',
    'authorization',
    'Authorization',
    'otp',
    'totp',
    'totpSecret',
    'otpauthUri',
    'privateKey',
    'private_key',
    'apiKey',
    'x-api-key',
    'kek',
    'tokenHash',
    'credentials',
    'jwt',
    'requestJwt',
    'pin',
  ])('%s is redacted', (key) => {
    expect(secretKey(key)).toBe(true);
    expect(redactFields({ [key]: 'value' })).toEqual({ [key]: REDACTED });
  });

  it.each([
    'statusCode',
    'status_code',
    'httpStatus',
    'HTTPStatusCode',
    'exitCode',
    'errorCode',
    'error_code',
    'status',
    'error',
    'reason',
    'tokenType',
    'token_type',
    'tokenEndpointAuthMethod',
    'codeChallengeMethod',
    'keyId',
    'kekSource',
    'kid',
    'clientId',
    'userId',
    'requestId',
    'grantType',
    'method',
    'route',
    'durationMs',
    'scope',
    'count',
    'encode',
    'barcode',
  ])('%s is kept', (key) => {
    expect(secretKey(key)).toBe(false);
    expect(redactFields({ [key]: 'value' })).toEqual({ [key]: 'value' });
  });

  it('redacts nested fields and arrays of them', () => {
    expect(redactFields({ client: { id: 'c1', secret: 's' }, grants: [{ code: 'x', statusCode: 400 }] })).toEqual({
      client: { id: 'c1', secret: REDACTED },
      grants: [{ code: REDACTED, statusCode: 400 }],
    });
  });
});

describe('secret values, whatever the key', () => {
  it.each([
    JWT,
    JWE,
    `invalid token ${JWT} refused`,
    'Bearer abcdefgh1234567890',
    'bearer abcdefgh1234567890',
    `Basic ${Buffer.from('client:secret').toString('base64')}`,
    `DPoP ${'a'.repeat(43)}`,
    'ada@example.com',
    'mongodb://keyflow:hunter2@db.example.com:27017/keyflow',
  ])('%s is redacted', (value) => {
    expect(secretValue(value)).toBe(true);
    expect(redactFields({ note: value })).toEqual({ note: REDACTED });
    expect(redactValue([value])).toEqual([REDACTED]);
  });

  it.each([
    'https://id.example.com/cb',
    'invalid_grant',
    'eyJ',
    'a.b.c',
    'Basic',
    'mongodb://127.0.0.1:27017/',
    'mongodb://keyflow:****@db.example.com/',
    'POST /api/oauth/token',
    '550e8400-e29b-41d4-a716-446655440000',
  ])('%s is kept', (value) => {
    expect(secretValue(value)).toBe(false);
  });
});

describe('errors', () => {
  it('keep their message only, and their stack at debug', () => {
    const err = new Error(`refused ${JWT}`);
    expect(redactFields({ error: new Error('no answer') })).toEqual({ error: 'no answer' });
    expect(redactFields({ error: err })).toEqual({ error: REDACTED });
    const withStack = redactFields({ error: new Error('no answer') }, true).error as { message: string; stack: string };
    expect(withStack.message).toBe('no answer');
    expect(withStack.stack).toContain('redact.test');
  });

  it('leave numbers, booleans and dates readable, and drop undefined', () => {
    expect(redactFields({ n: 3, ok: true, at: new Date(0), none: undefined, nil: null })).toEqual({
      n: 3,
      ok: true,
      at: '1970-01-01T00:00:00.000Z',
      nil: null,
    });
  });
});
