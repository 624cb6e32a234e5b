// A real webhook receiver for tests, written as docs/webhooks.md ("Receiving webhooks") tells receivers to:
// it recomputes the HMAC-SHA256 of the raw body with the webhook's secret and
// compares it with X-Keyflow-Signature in constant time (its own code, not
// Keyflow's). Each request is recorded with whether its signature verified.
// The answer can be chosen per request: a status, a body, or never answering.
// `addHook` registers a webhook that sends to one of its paths.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { Kek } from '../../lib/security/kek.js';
import type { Store } from '../../lib/store/db.js';
import { createWebhook } from '../../lib/store/webhooks.js';
import type { WebhookDoc } from '../../lib/model/webhooks.js';
import { listenLocally } from './local-server.js';

export interface ReceivedDelivery {
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body as received. */
  raw: string;
  body: { event: string; timestamp: number; data: Record<string, unknown> };
  /** Whether X-Keyflow-Signature matched the secret registered for this path. */
  verified: boolean;
}

export type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

export interface WebhookReceiver {
  /** Base URL, e.g. http://127.0.0.1:PORT */
  url: string;
  received: ReceivedDelivery[];
  /** The secret a path's deliveries are verified with (set it after creating the webhook). */
  secrets: Map<string, string>;
  /** How a path answers (default 200 "ok"). */
  answers: Map<string, Answer>;
  /** Deliveries to one path. */
  at(path: string): ReceivedDelivery[];
  close(): Promise<void>;
}

export function signatureMatches(secret: string, raw: Buffer, header: string | undefined): boolean {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`, 'utf8');
  const given = Buffer.from(header, 'utf8');
  // timingSafeEqual needs equal lengths; the length of a valid signature is public.
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const secrets = new Map<string, string>();
  const answers = new Map<string, Answer>();
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const secret = secrets.get(path);
      let body: ReceivedDelivery['body'];
      try {
        body = JSON.parse(raw.toString('utf8')) as ReceivedDelivery['body'];
      } catch {
        body = { event: '', timestamp: 0, data: {} };
      }
      received.push({
        path,
        headers: req.headers,
        raw: raw.toString('utf8'),
        body,
        verified: secret !== undefined && signatureMatches(secret, raw, req.headers['x-keyflow-signature'] as string | undefined),
      });
      const answer = answers.get(path) ?? { status: 200, body: 'ok' };
      if (answer === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers }).end(answer.body ?? '');
    });
  });
  const local = await listenLocally(server);
  return {
    url: local.url,
    received,
    secrets,
    answers,
    at: (path) => received.filter((r) => r.path === path),
    async close() {
      for (const res of hanging) res.destroy();
      await local.close();
    },
  };
}

export interface HookOptions {
  events: string[];
  /** An admin webhook unless an owner is given (user webhooks belong to their owner). */
  ownerUserId?: string | null;
  /** Default: the path. */
  name?: string;
}

/** A webhook in the store that sends to `path` of the receiver, its secret handed to the receiver to verify with. */
export async function addHook(
  deps: { store: Store; kek: Kek },
  receiver: WebhookReceiver,
  path: string,
  options: HookOptions,
): Promise<{ webhook: WebhookDoc; secret: string }> {
  const ownerUserId = options.ownerUserId ?? null;
  const created = await createWebhook(deps.store, deps.kek, {
    scope: ownerUserId ? 'user' : 'admin',
    ownerUserId,
    name: options.name ?? path,
    url: `${receiver.url}${path}`,
    events: options.events,
  });
  receiver.secrets.set(path, created.secret);
  return created;
}
