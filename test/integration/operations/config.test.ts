import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig, type Config } from '../../../lib/config/env.js';
import { temporalConnectionOptions } from '../../../lib/temporal/connection.js';
import { STACK_FRAME } from '../../support/harness.js';
import { runEntry } from '../../support/cli.js';

describe('configuration', () => {
  it('has working defaults for a fresh clone', () => {
    const result = parseConfig({}, '/srv/keyflow');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config).toMatchObject({
      issuer: 'http://localhost:3000',
      port: 3000,
      dataDir: '/srv/keyflow/data',
      temporal: { address: '127.0.0.1:7233', embedded: true, namespace: 'default', uiPort: 8233 },
      mongo: { uri: 'mongodb://127.0.0.1:27017/', embedded: true, database: 'keyflow' },
      kek: undefined,
      // A refresh token just superseded may be retried for 30 s (docs/tokens.md, refresh families);
      // a public client's unbound one never.
      refreshRetryWindowMs: 30_000,
      refreshRetryWindowPublicMs: 0,
    });
  });

  it('uses external servers when their addresses are given', () => {
    const result = parseConfig({ TEMPORAL_ADDRESS: 'temporal:7233', MONGODB_URI: 'mongodb://db:27017/?replicaSet=rs0' });
    expect(result.ok && result.config.temporal).toMatchObject({ address: 'temporal:7233', embedded: false });
    expect(result.ok && result.config.mongo).toMatchObject({ uri: 'mongodb://db:27017/?replicaSet=rs0', embedded: false });
  });

  it('normalises the issuer and accepts a KEK as hex or base64', () => {
    const hex = 'ab'.repeat(32);
    const r1 = parseConfig({ ISSUER: 'https://id.example.com/', KEYFLOW_KEK: hex });
    expect(r1.ok && r1.config.issuer).toBe('https://id.example.com');
    expect(r1.ok && r1.config.kek?.equals(Buffer.from(hex, 'hex'))).toBe(true);
    const r2 = parseConfig({ KEYFLOW_KEK: Buffer.alloc(32, 1).toString('base64') });
    expect(r2.ok && r2.config.kek?.length).toBe(32);
  });

  it.each([
    [{ ISSUER: 'not a url' }, /^ISSUER: must be an absolute URL/],
    [{ ISSUER: 'ftp://id.example.com' }, /^ISSUER: must use https/],
    [{ ISSUER: 'https://id.example.com/?x=1' }, /^ISSUER: must not have a query or fragment/],
    [{ PORT: 'eighty' }, /^PORT: must be a port number/],
    [{ PORT: '70000' }, /^PORT: must be between 1 and 65535/],
    [{ TEMPORAL_ADDRESS: 'no-port' }, /^TEMPORAL_ADDRESS: must be host:port/],
    [{ MONGODB_URI: 'postgres://x' }, /^MONGODB_URI: must be a mongodb:\/\//],
    [{ KEYFLOW_KEK: 'short' }, /^KEYFLOW_KEK: must be 32 random bytes/],
    [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL: must be debug, info, warn or error/],
    [{ REFRESH_RETRY_WINDOW_SECONDS: '-1' }, /^REFRESH_RETRY_WINDOW_SECONDS: must be at least 0/],
    [{ REFRESH_RETRY_WINDOW_SECONDS: '301' }, /^REFRESH_RETRY_WINDOW_SECONDS: must be at most 300/],
    [{ PASSWORD_HASH_COST: '9' }, /^PASSWORD_HASH_COST: must be at least 10/],
    [{ PASSWORD_HASH_COST: '21' }, /^PASSWORD_HASH_COST: must be at most 20/],
    // Cheap hashes are for test suites: never on a public issuer.
    [{ ISSUER: 'https://id.example.com', PASSWORD_HASH_COST: '14' }, /^PASSWORD_HASH_COST: below 15 only with an http:\/\/localhost/],
    [{ ISSUER: 'http://id.example.com', PASSWORD_HASH_COST: '10' }, /^PASSWORD_HASH_COST: below 15 only with an http:\/\/localhost/],
  ])('refuses %j with one clear line', (env, message) => {
    const result = parseConfig(env);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatch(message);
  });

  it('takes any password hash cost from 15 to 20 on a public issuer, and down to 10 on a local one', () => {
    const cost = (env: Record<string, string>) => {
      const result = parseConfig(env);
      return result.ok ? result.config.passwordHashCost : result.errors;
    };
    expect(cost({ ISSUER: 'https://id.example.com' })).toBe(15);
    expect(cost({ ISSUER: 'https://id.example.com', PASSWORD_HASH_COST: '17' })).toBe(17);
    expect(cost({ ISSUER: 'http://127.0.0.1:3000', PASSWORD_HASH_COST: '10' })).toBe(10);
    expect(cost({ ISSUER: 'http://localhost:3000', PASSWORD_HASH_COST: '12' })).toBe(12);
  });

  it('never echoes the KEK in an error', () => {
    const result = parseConfig({ KEYFLOW_KEK: 'c2VjcmV0LWJ1dC10b28tc2hvcnQ=' });
    expect(!result.ok && result.errors.join('\n')).not.toContain('c2VjcmV0');
  });

  it.each(['api/main.js', 'worker/main.js', 'tools/scripts/launcher.js'])('%s exits 1 with one line per problem and no stack trace', async (entry) => {
    const { code, stdout, stderr } = await runEntry(entry, [], { ISSUER: 'nope', PORT: '0x', LOG_LEVEL: 'chatty' });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.every((l) => /: invalid configuration: (ISSUER|PORT|LOG_LEVEL): /.test(l))).toBe(true);
    expect(stderr).not.toMatch(STACK_FRAME);
  });
});

describe('OUTBOUND_ALLOWLIST', () => {
  it('parses feature=host:port entries, hosts written as URLs write them', () => {
    const result = parseConfig({ OUTBOUND_ALLOWLIST: 'webhooks=Hooks.Internal:8443, *=[0:0::1]:*,jwks_uri=127.1:443,captcha=10.0.0.5:*' });
    expect(result.ok && result.config.outbound).toEqual({
      allow: [
        { feature: 'webhooks', host: 'hooks.internal', port: 8443 },
        { feature: '*', host: '::1', port: '*' },
        { feature: 'jwks_uri', host: '127.0.0.1', port: 443 },
        { feature: 'captcha', host: '10.0.0.5', port: '*' },
      ],
      timeoutMs: 10_000,
      maxResponseBytes: 1024 * 1024,
    });
  });

  it.each(['127.0.0.1', 'localhost,webhooks=localhost:80', 'webhooks=localhost', 'smtp=localhost:25', 'webhooks=localhost:0', 'webhooks=[:::]:80'])(
    'refuses %j (a bare host, an unknown feature, a bad port or address)',
    (value) => {
      const result = parseConfig({ OUTBOUND_ALLOWLIST: value });
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.errors).toHaveLength(1);
      expect(result.errors[0]).toMatch(/^OUTBOUND_ALLOWLIST: ".*" must be feature=host:port/);
    },
  );
});

describe('Temporal TLS and API key', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyflow-tls-config-'));
    for (const f of ['ca.pem', 'client.pem', 'client.key']) fs.writeFileSync(path.join(dir, f), `contents of ${f}`);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is off by default', () => {
    const result = parseConfig({ TEMPORAL_ADDRESS: 'temporal:7233' });
    expect(result.ok && result.config.temporal).toMatchObject({ tls: null, apiKey: undefined });
    expect(result.ok && temporalConnectionOptions(result.config.temporal)).toEqual({ address: 'temporal:7233' });
  });

  it('resolves the files against the working directory and builds the connection options from them', () => {
    const env = {
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_TLS_CERT: 'client.pem',
      TEMPORAL_TLS_KEY: 'client.key',
      TEMPORAL_TLS_CA: path.join(dir, 'ca.pem'),
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
      TEMPORAL_API_KEY: 'an-api-key',
    };
    const result = parseConfig(env, dir);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config.temporal.tls).toEqual({
      certFile: path.join(dir, 'client.pem'),
      keyFile: path.join(dir, 'client.key'),
      caFile: path.join(dir, 'ca.pem'),
      serverName: 'temporal.internal',
    });
    expect(temporalConnectionOptions(result.config.temporal)).toEqual({
      address: 'temporal:7233',
      tls: {
        serverNameOverride: 'temporal.internal',
        serverRootCACertificate: Buffer.from('contents of ca.pem'),
        clientCertPair: { crt: Buffer.from('contents of client.pem'), key: Buffer.from('contents of client.key') },
      },
      apiKey: 'an-api-key',
    });
  });

  it('an API key alone still connects with TLS (the key never crosses the network in clear text)', () => {
    const result = parseConfig({ TEMPORAL_ADDRESS: 'temporal.example:7233', TEMPORAL_API_KEY: 'an-api-key' });
    expect(result.ok && temporalConnectionOptions(result.config.temporal)).toEqual({ address: 'temporal.example:7233', tls: {}, apiKey: 'an-api-key' });
  });

  it.each([
    [{ TEMPORAL_TLS_CA: '/no/such/ca.pem' }, /^TEMPORAL_TLS_CA: cannot read \/no\/such\/ca\.pem \(no such file\)$/],
    [{ TEMPORAL_TLS_CA: '.' }, /^TEMPORAL_TLS_CA: cannot read .* \(not a file\)$/],
    [{ TEMPORAL_TLS_CERT: 'client.pem' }, /^TEMPORAL_TLS_KEY: TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together/],
    [{ TEMPORAL_TLS_KEY: 'client.key' }, /^TEMPORAL_TLS_CERT: TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together/],
    [{ TEMPORAL_TLS_SERVER_NAME: 'not a name' }, /^TEMPORAL_TLS_SERVER_NAME: must be a host name/],
  ])('refuses %j with one clear line', (env, message) => {
    const result = parseConfig({ TEMPORAL_ADDRESS: 'temporal:7233', ...env }, dir);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatch(message);
  });

  it('needs TEMPORAL_ADDRESS: the embedded dev server has neither TLS nor API keys', () => {
    for (const env of [{ TEMPORAL_TLS_CA: 'ca.pem' }, { TEMPORAL_API_KEY: 'an-api-key' }]) {
      const result = parseConfig(env, dir);
      expect(!result.ok && result.errors).toEqual([expect.stringMatching(/^TEMPORAL_ADDRESS: must be set with TEMPORAL_TLS_\* or TEMPORAL_API_KEY/)]);
    }
  });

  it('never echoes the API key in an error', () => {
    const result = parseConfig({ TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_API_KEY: 'secret key with spaces' });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors).toEqual(['TEMPORAL_API_KEY: must be printable ASCII without spaces']);
  });

  it('a file gone after start-up is one clear error when a connection is made', () => {
    const temporal: Config['temporal'] = {
      address: 'temporal:7233',
      embedded: false,
      port: 7233,
      uiPort: 8233,
      namespace: 'default',
      taskQueue: 'keyflow',
      tls: { caFile: path.join(dir, 'gone.pem') },
      apiKey: undefined,
    };
    expect(() => temporalConnectionOptions(temporal)).toThrow(/^TEMPORAL_TLS_CA: cannot read .*gone\.pem \(ENOENT\)$/);
  });

  it.each([
    ['api/main.js', []],
    ['worker/main.js', []],
    ['tools/scripts/launcher.js', []],
    ['cli/keyflow.js', ['flows', 'list']],
  ])('%s exits 1 with one line when a TLS file cannot be read, never a stack trace', async (entry, args) => {
    const { code, stdout, stderr } = await runEntry(entry, args, {
      TEMPORAL_TLS_CA: '/no/such/ca.pem',
      TEMPORAL_TLS_CERT: undefined,
      TEMPORAL_TLS_KEY: undefined,
      TEMPORAL_API_KEY: 'an-api-key-never-shown',
    });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/: invalid configuration: TEMPORAL_TLS_CA: cannot read \/no\/such\/ca\.pem \(no such file\)$/),
    ]);
    expect(stderr).not.toMatch(STACK_FRAME);
    expect(stderr).not.toContain('an-api-key-never-shown');
  });
});
