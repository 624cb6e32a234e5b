// `keyflow webhooks tail`: a webhook's recent deliveries, one line each,
// newest first; --limit; --follow printing new records as they are written;
// usage errors (exit 2) for an unknown id and bad arguments. One delivery is
// real (event pipeline → WebhookDelivery workflow → a verifying receiver);
// the others are written into the history directly.
import { recentDeliveries, recordDelivery } from '../../../lib/store/webhook-history.js';
import type { WebhookDeliveryDoc } from '../../../lib/model/webhook-delivery.js';
import { useTestApi, eventually } from '../../support/harness.js';
import { CLI_ENTRY, expectRefused, runCli, startEntry } from '../../support/cli.js';
import { testDatabase } from '../../support/database.js';
import { addHook, startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';

const database = testDatabase('cli_webhooks');
const USER = 'user-cli-webhooks';
const env = database.env;
/** A tail line's fields: time, event, outcome, status or error kind, duration (ms), delivery id. */
const fields = (line: string): string[] => {
  const parts = line.split(/ {2,}/);
  expect(parts).toHaveLength(6);
  expect(parts[4]).toMatch(/^(\d+|-) ms$/);
  return [...parts.slice(0, 4), parts[4]!.replace(/ ms$/, ''), parts[5]!];
};

let receiver: WebhookReceiver;
const api = useTestApi(env);
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver.close();
});

const hook = async (path: string) => (await addHook(api.deps, receiver, path, { ownerUserId: USER, events: ['*'] })).webhook;

const record = (webhookId: string, i: number, over: Partial<WebhookDeliveryDoc> = {}): WebhookDeliveryDoc => ({
  _id: `00000000-0000-8000-8000-${String(i).padStart(12, '0')}`,
  webhookId,
  event: 'app.updated',
  success: true,
  statusCode: 200,
  error: null,
  deliveredAt: new Date(Date.UTC(2030, 0, 1, 0, 0, i)),
  durationMs: i,
  ...over,
});

describe('keyflow webhooks tail', () => {
  it('prints the recent deliveries newest first, one line each, a real one included', async () => {
    const webhook = await hook('/tail-real');
    await api.deps.events.user('profile.updated', USER, { user_id: USER, changed: ['name'] }, { type: 'user', userId: USER });
    let real: WebhookDeliveryDoc | undefined;
    await eventually(async () => {
      [real] = await recentDeliveries(api.deps.store, webhook._id);
      expect(real).toBeDefined();
    }, 30_000);
    expect(receiver.at('/tail-real')[0]!.verified).toBe(true);
    await recordDelivery(
      api.deps.store,
      record(webhook._id, 1, {
        deliveredAt: new Date(real!.deliveredAt.getTime() - 60_000),
        success: false,
        statusCode: null,
        error: 'timeout',
        durationMs: 10_003,
      }),
    );
    await recordDelivery(
      api.deps.store,
      record(webhook._id, 2, { deliveredAt: new Date(real!.deliveredAt.getTime() - 30_000), success: false, statusCode: 503, durationMs: 12 }),
    );

    const r = await runCli(['webhooks', 'tail', webhook._id], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    const parsed = lines.map(fields);
    expect(parsed[0]).toEqual([real!.deliveredAt.toISOString(), 'profile.updated', 'success', '200', String(real!.durationMs), real!._id]);
    expect(parsed[0]![5]).toBe(receiver.at('/tail-real')[0]!.headers['x-keyflow-delivery']);
    expect(parsed[1]).toEqual([expect.any(String), 'app.updated', 'failure', '503', '12', record('', 2)._id]);
    expect(parsed[2]).toEqual([expect.any(String), 'app.updated', 'failure', 'timeout', '10003', record('', 1)._id]);
  }, 60_000);

  it('--limit keeps the newest N; the history holds at most 50', async () => {
    const webhook = await hook('/tail-limit');
    for (let i = 1; i <= 55; i++) await recordDelivery(api.deps.store, record(webhook._id, i));
    const three = await runCli(['webhooks', 'tail', webhook._id, '--limit', '3'], env);
    expect(three.code).toBe(0);
    expect(
      three.stdout
        .trimEnd()
        .split('\n')
        .map((l) => fields(l)[5]),
    ).toEqual([55, 54, 53].map((i) => record('', i)._id));
    const all = await runCli(['webhooks', 'tail', webhook._id], env);
    const ids = all.stdout
      .trimEnd()
      .split('\n')
      .map((l) => fields(l)[5]);
    expect(ids).toHaveLength(50);
    expect(ids.at(-1)).toBe(record('', 6)._id);
  }, 60_000);

  it('says so on stderr when nothing was delivered yet (exit 0)', async () => {
    const webhook = await hook('/tail-empty');
    const r = await runCli(['webhooks', 'tail', webhook._id], env);
    expect(r).toEqual({ code: 0, stdout: '', stderr: `keyflow: no deliveries recorded for webhook ${webhook._id}\n` });
  }, 30_000);

  it('--follow prints the history oldest first, then new records as they come, and stops on SIGINT', async () => {
    const webhook = await hook('/tail-follow');
    await recordDelivery(api.deps.store, record(webhook._id, 1));
    await recordDelivery(api.deps.store, record(webhook._id, 2));
    const { child, output, result } = startEntry(CLI_ENTRY, ['webhooks', 'tail', webhook._id, '--follow'], env);
    const stdout = () => output().stdout;
    try {
      await eventually(() => expect(stdout().trimEnd().split('\n')).toHaveLength(2), 15_000);
      await recordDelivery(api.deps.store, record(webhook._id, 3, { event: 'app.deleted', success: false, statusCode: null, error: 'unreachable' }));
      await eventually(() => expect(stdout().trimEnd().split('\n')).toHaveLength(3), 15_000);
      const ids = stdout()
        .trimEnd()
        .split('\n')
        .map((l) => fields(l)[5]);
      expect(ids).toEqual([1, 2, 3].map((i) => record('', i)._id));
      expect(fields(stdout().trimEnd().split('\n')[2]!).slice(1, 4)).toEqual(['app.deleted', 'failure', 'unreachable']);
    } finally {
      child.kill('SIGINT');
    }
    expect((await result).code).toBe(0);
  }, 60_000);

  it('--follow --limit 1 prints the newest record, then only records written after it (never an older one as new)', async () => {
    const webhook = await hook('/tail-follow-limit');
    for (const i of [11, 12, 13]) await recordDelivery(api.deps.store, record(webhook._id, i));
    const { child, output, result } = startEntry(CLI_ENTRY, ['webhooks', 'tail', webhook._id, '--follow', '--limit', '1'], env);
    const ids = () =>
      output()
        .stdout.trimEnd()
        .split('\n')
        .filter(Boolean)
        .map((l) => fields(l)[5]);
    try {
      await eventually(() => expect(ids()).toEqual([record('', 13)._id]), 15_000);
      await recordDelivery(api.deps.store, record(webhook._id, 14));
      await eventually(() => expect(ids()).toHaveLength(2), 15_000);
      // Two more polls: nothing older comes back.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(ids()).toEqual([record('', 13)._id, record('', 14)._id]);
    } finally {
      child.kill('SIGINT');
    }
    expect((await result).code).toBe(0);
  }, 60_000);

  it.each([
    [['webhooks', 'tail'], /^keyflow: ID is required \(see keyflow webhooks tail --help\)\n$/],
    [['webhooks', 'tail', 'x', '--limit', '0'], /--limit must be an integer from 1 to 50/],
    [['webhooks', 'tail', 'x', '--limit', '51'], /--limit must be an integer from 1 to 50/],
    [['webhooks', 'tail', 'x', '--limit', 'ten'], /--limit must be an integer from 1 to 50/],
    [['webhooks', 'tail', 'x', 'y'], /unexpected argument: y/],
    [['webhooks', 'tail', 'x', '--bogus'], /unknown option --bogus/],
    [['webhooks', 'list'], /unknown command: webhooks list/],
  ])(
    '%j is a usage error: exit 2, message on stderr, nothing on stdout',
    async (args, message) => {
      expectRefused(await runCli(args, env), 2, message);
    },
    30_000,
  );

  it('names an unknown webhook in one line, exit 1', async () => {
    expectRefused(await runCli(['webhooks', 'tail', 'no-such-webhook'], env), 1, /^keyflow: error: no webhook with id no-such-webhook\n$/);
  });
});
