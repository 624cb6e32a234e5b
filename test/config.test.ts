import { parseConfig } from '../config/env.js';
import { runEntry, STACK_FRAME } from './support/harness.js';

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
  ])('refuses %j with one clear line', (env, message) => {
    const result = parseConfig(env);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatch(message);
  });

  it('never echoes the KEK in an error', () => {
    const result = parseConfig({ KEYFLOW_KEK: 'c2VjcmV0LWJ1dC10b28tc2hvcnQ=' });
    expect(!result.ok && result.errors.join('\n')).not.toContain('c2VjcmV0');
  });

  it.each(['api/main.js', 'worker/main.js', 'scripts/launcher.js'])('%s exits 1 with one line per problem and no stack trace', async (entry) => {
    const { code, stdout, stderr } = await runEntry(entry, [], { ISSUER: 'nope', PORT: '0x', LOG_LEVEL: 'chatty' });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.every((l) => /: invalid configuration: (ISSUER|PORT|LOG_LEVEL): /.test(l))).toBe(true);
    expect(stderr).not.toMatch(STACK_FRAME);
  });
});
