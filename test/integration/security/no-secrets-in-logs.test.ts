// No secret reaches a log: an api and a worker of this
// file's own, at LOG_LEVEL=debug with their output captured, go through every
// step-up path that handles a secret — password and backup-code sign-in, a
// third-party captcha token checked against a local fake provider, TOTP and
// backup-code confirmations, a failed TOTP attempt, the sudo opt-in and the
// sudo confirmation, verify with each 2FA code — and then neither process's
// output, nor the workflows' histories, nor the audit trail contain any of
// those values (nor the user's email, nor anything shaped like a JWT). The
// flow runs twice: with text log lines, and with JSON ones (LOG_FORMAT=json,
// every line then one object), the access log on and traces exported to a
// real Jaeger, whose every span is searched for them too.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { generate } from 'otplib';
import { freePort } from '../../../tools/embedded/ports.js';
import { loadKek } from '../../../lib/security/kek.js';
import { hashSecret, newSecret } from '../../../lib/security/secrets.js';
import { createClient } from '../../../lib/store/clients.js';
import { type Store } from '../../../lib/store/db.js';
import { setSiteSetting } from '../../../lib/store/settings.js';
import { createUser } from '../../../lib/store/users.js';
import { stepUpWorkflowId } from '../../../lib/model/step-up-challenge.js';
import { type Json } from '../../support/harness.js';
import { auditRecords } from '../../support/audit.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { enrollFactors } from '../../../tools/fixtures/factors.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { openTestStore, testDatabase } from '../../support/database.js';
import { processGroup, type ProcessGroup, untilReady } from '../../support/keyflow-process.js';
import { startJaeger, type RunningJaeger } from '../../support/jaeger.js';

const TIMEOUT = 180_000;

/** A secret as a pattern: six-digit codes match as whole numbers (not inside longer numbers such as timestamps). */
const secretPattern = (secret: string) =>
  /^\d+$/.test(secret) ? new RegExp(`(?<!\\d)${secret}(?!\\d)`) : new RegExp(secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
const PASSWORD = 'logs test password 7f3a';
const REDIRECT = 'https://logs-rp.example/cb';
const TOTP_SECRET = 'KRUGS4ZANFZSAYJAORSXG5BAONSWG4TF';
const database = testDatabase('no_secrets_in_logs');

describe.each(['text', 'json'] as const)('with %s log lines', (format) => {
  const taskQueue = `no-secrets-in-logs-${format}-${Date.now()}`;
  let store: Store;
  let base: string;
  let temporal: Client;
  let connection: Connection;
  let fake: http.Server;
  let processes: ProcessGroup | undefined;
  let jaeger: RunningJaeger | undefined;

  beforeAll(async () => {
    const port = await freePort();
    if (format === 'json') jaeger = await startJaeger();
    base = `http://127.0.0.1:${port}`;
    // A loaded machine (the whole suite on two cores) can take more than the
    // default 5 s over a step-up update; this test is about logs, not outages.
    processes = processGroup({
      ...process.env,
      PORT: String(port),
      ISSUER: base,
      TEMPORAL_TASK_QUEUE: taskQueue,
      ...database.env,
      LOG_LEVEL: 'debug',
      LOG_FORMAT: format,
      ACCESS_LOG: 'on',
      DEPENDENCY_TIMEOUT_MS: '30000',
      ...(jaeger ? { OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint, OTEL_BSP_SCHEDULE_DELAY: '200' } : {}),
    });
    store = openTestStore(database);
    // A captcha provider's verify endpoint: one token passes.
    fake = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success: new URLSearchParams(body).get('response') === captchaToken })),
      );
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', () => resolve()));
    processes.start('worker');
    processes.start('api');
    connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    temporal = new Client({ connection });
    await untilReady(base);
  }, TIMEOUT);

  afterAll(async () => {
    await processes?.killAll('SIGTERM');
    await jaeger?.stop();
    fake?.closeAllConnections();
    await new Promise<void>((resolve) => (fake ? fake.close(() => resolve()) : resolve()));
    await connection?.close();
    await store?.close();
  });

  /** A random answer the fake provider accepts: a secret that must not be logged. */
  const captchaToken = `captcha-${newSecret()}`;
  const totpNow = async () => generate({ secret: TOTP_SECRET, epoch: Math.floor(Date.now() / 1000) });

  it(
    'TOTP, backup and 2FA codes, captcha tokens and passwords appear in no log and no workflow history',
    async () => {
      const secrets: string[] = [PASSWORD, captchaToken, TOTP_SECRET];
      await setSiteSetting(store, 'captcha_provider', 'hcaptcha');
      await setSiteSetting(store, 'captcha_secret_key', 'provider-secret-key-9c1e', loadKek(Buffer.from(process.env.KEYFLOW_KEK!, 'base64'), ''));
      await setSiteSetting(store, 'captcha_verify_url', `http://127.0.0.1:${(fake.address() as AddressInfo).port}/siteverify`);
      await setSiteSetting(store, 'sudo_mode_ttl_minutes', 5);
      secrets.push('provider-secret-key-9c1e');

      const email = uniqueEmail('logs');
      secrets.push(email);
      const user = await createUser(store, { email, password: PASSWORD, name: 'Logs' });
      const kek = loadKek(Buffer.from(process.env.KEYFLOW_KEK!, 'base64'), '');
      const backupCodes = await enrollFactors(store, kek, user._id, TOTP_SECRET);
      const { client, clientSecret } = await createClient(store, {
        name: 'Logs RP',
        allowedScopes: ['openid'],
        redirectUris: [{ type: 'equals', value: REDIRECT }],
        isVerified: true,
      });
      secrets.push(clientSecret!);
      const auth = `Basic ${Buffer.from(`${client._id}:${clientSecret}`).toString('base64')}`;
      secrets.push(auth.slice('Basic '.length));
      const challengeIds: string[] = [];
      const challenge = async (fields: Record<string, unknown> = {}) => {
        const res = await fetch(`${base}/api/oauth/2fa/challenges`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: auth },
          body: JSON.stringify({ redirect_uri: REDIRECT, action: 'Export every record', nonce: 'n', state: 's', ...fields }),
        });
        expect(res.status).toBe(201);
        const body = (await res.json()) as Json;
        challengeIds.push(body.challenge_id);
        return body;
      };
      const verify = async (code: string) => {
        secrets.push(code);
        const res = await fetch(`${base}/api/oauth/2fa/verify`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth },
          body: new URLSearchParams({ code, redirect_uri: REDIRECT }),
        });
        expect(res.status).toBe(200);
        return (await res.json()) as Json;
      };
      const agent = new HttpUser(base);
      const open = async (url: string) => {
        const step = await agent.get(url);
        expect(new URL(step.url).pathname).toBe('/oauth/2fa');
        return step.res.text();
      };
      const answer = async (page: string, fields: Record<string, string>) => {
        const step = await agent.submit(page, '/api/oauth/2fa/authorize', { confirm_action: 'yes', ...fields });
        return step.external;
      };

      // Sign-in: password, then a backup code as the second factor.
      const first = await challenge({ require_captcha: true });
      let step = await agent.signIn(await agent.get(first.url), email, PASSWORD);
      expect(new URL(step.url).pathname).toBe('/login/second-factor');
      const signInBackup = backupCodes.pop()!;
      secrets.push(signInBackup);
      step = await agent.submit(await step.res.text(), '/login/second-factor', { code: signInBackup });
      const firstPage = await step.res.text();

      // A refused captcha token, then the right one with a TOTP code (and the sudo opt-in).
      const wrongToken = `wrong-${newSecret()}`;
      secrets.push(wrongToken);
      expect(await answer(firstPage, { captcha_token: wrongToken, code: await totpNow() })).toBeUndefined();
      const totp = await totpNow();
      secrets.push(totp);
      const confirmed = await answer(firstPage, { captcha_token: captchaToken, code: totp, sudo: 'yes' });
      const firstCode = confirmed!.searchParams.get('code')!;
      expect(await verify(firstCode)).toMatchObject({ method: 'totp', user_id: user._id });

      // Within the sudo window: the checkbox alone.
      const sudo = await challenge();
      const sudoAnswer = await answer(await open(sudo.url), { decision: 'sudo' });
      expect(await verify(sudoAnswer!.searchParams.get('code')!)).toMatchObject({ method: 'sudo' });

      // Another client's challenge: a backup code.
      const other = await createClient(store, {
        name: 'Logs RP 2',
        allowedScopes: ['openid'],
        redirectUris: [{ type: 'equals', value: REDIRECT }],
        isVerified: true,
      });
      secrets.push(other.clientSecret!);
      const otherAuth = `Basic ${Buffer.from(`${other.client._id}:${other.clientSecret}`).toString('base64')}`;
      const created = await fetch(`${base}/api/oauth/2fa/challenges`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: otherAuth },
        body: JSON.stringify({ redirect_uri: REDIRECT, action: 'Close the account', nonce: 'n2' }),
      });
      const otherChallenge = (await created.json()) as Json;
      challengeIds.push(otherChallenge.challenge_id);
      const backup = backupCodes.pop()!;
      secrets.push(backup);
      const byBackup = await answer(await open(otherChallenge.url), { code: backup });
      const backupCode = byBackup!.searchParams.get('code')!;
      secrets.push(backupCode);
      const verified = await fetch(`${base}/api/oauth/2fa/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: otherAuth },
        body: new URLSearchParams({ code: backupCode, redirect_uri: REDIRECT }),
      });
      expect(((await verified.json()) as Json).method).toBe('backup');

      // A failed TOTP attempt (a code of another secret) consumes a challenge.
      const failing = await challenge({ require_captcha: true });
      const otherTotp = await generate({ secret: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', epoch: Math.floor(Date.now() / 1000) });
      const wrongTotp = otherTotp === (await totpNow()) ? String((Number(otherTotp) + 1) % 1_000_000).padStart(6, '0') : otherTotp;
      const failed = await answer(await open(failing.url), { captcha_token: captchaToken, code: wrongTotp });
      expect(failed!.searchParams.get('error')).toBe('access_denied');
      secrets.push(wrongTotp);

      // Every challenge's workflow has finished its confirmations; histories are complete enough to search.
      const histories = await Promise.all(
        challengeIds.map(async (id) =>
          JSON.stringify(await temporal.workflow.getHandle(stepUpWorkflowId(id)).fetchHistory(), (key, value) =>
            key === 'data' && typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : value,
          ),
        ),
      );
      expect(histories.join('\n')).toContain(hashSecret(firstCode)); // the payloads are decoded
      const logs = processes!.output();
      // The processes did log (the debug level is on): an empty output would prove nothing.
      expect(logs).toContain('step-up challenge confirmed');
      expect(logs).toContain('step-up factor failed');
      // Nothing shaped like a JWT or JWE (an ID token, a request object), whatever it is.
      expect(logs).not.toMatch(/eyJ[\w-]+\.[\w-]*\./);
      if (format === 'json') {
        for (const line of logs.split('\n').filter(Boolean))
          expect(JSON.parse(line)).toMatchObject({ time: expect.any(String), level: expect.any(String), msg: expect.any(String) });
      }
      // The audit trail (inbox and sealed chain) recorded the sign-ins and confirmations, and holds no secret, nor a hash of one.
      const audit = JSON.stringify(await auditRecords(store));
      expect(audit).toContain('"event":"login"');
      expect(audit).toContain('"event":"stepup.confirmed"');
      expect(audit).not.toContain(hashSecret(firstCode));
      for (const secret of secrets) {
        const pattern = secretPattern(secret);
        expect({ secret, inAudit: pattern.test(audit) }).toEqual({ secret, inAudit: false });
      }
      // Every span both processes exported (names, attributes, events), once the last batches are in.
      let spans = '';
      if (jaeger) {
        await jaeger.waitForTrace((t) => t.spans.some((s) => s.operationName === 'POST /api/oauth/2fa/challenges'), 20_000, 'keyflow-api');
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        const traces = [...(await jaeger.traces('keyflow-api', 1000)), ...(await jaeger.traces('keyflow-worker', 1000))];
        expect(traces.flatMap((t) => t.spans).some((s) => s.operationName.startsWith('RunActivity:'))).toBe(true);
        spans = JSON.stringify(traces.flatMap((t) => t.spans.map((s) => [s.operationName, s.tags, s.logs])));
        expect(spans).not.toMatch(/eyJ[\w-]+\.[\w-]*\./);
      }
      for (const secret of secrets) {
        const pattern = secretPattern(secret);
        expect({ secret, inLogs: pattern.test(logs), inSpans: pattern.test(spans) }).toEqual({ secret, inLogs: false, inSpans: false });
        for (const history of histories) expect({ secret, inHistory: history.includes(secret) }).toEqual({ secret, inHistory: false });
      }
    },
    TIMEOUT,
  );
});
