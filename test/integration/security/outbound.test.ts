// The outbound HTTP client's safety policy, against real local servers.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OutboundAllowEntry } from '../../../lib/config/env.js';
import { guardedLookup, isInternalAddress, OutboundError, outboundRequest, type OutboundPolicy } from '../../../lib/runtime/http-client.js';
import { startRawReceiver } from '../../support/raw-receiver.js';

let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/redirect') return void res.writeHead(302, { location: 'http://example.com/' }).end();
    if (req.url === '/big') return void res.end(Buffer.alloc(64 * 1024, 1));
    if (req.url === '/just-over') return void res.end(Buffer.alloc(2 * 1024, 1));
    if (req.url === '/slow') {
      // Too late for the client, which gives up first; the timer goes with the connection, so nothing outlives the test.
      const late = setTimeout(() => res.end('late'), 2_000);
      return void res.on('close', () => clearTimeout(late));
    }
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end(`got ${req.method} ${body}`));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));

const LOOPBACK: OutboundAllowEntry[] = [
  { feature: '*', host: '127.0.0.1', port: '*' },
  { feature: '*', host: 'localhost', port: '*' },
];
const policy = (allow: OutboundAllowEntry[]): OutboundPolicy => ({ timeoutMs: 500, maxResponseBytes: 1024, allow });
const allowLoopback = policy(LOOPBACK);
const strict = policy([]);
const port = () => Number(new URL(base).port);

describe('outbound HTTP client', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['::1', true],
    ['fe80::1', true],
    ['fd00::1', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', true],
    ['::7f00:1', true],
    ['64:ff9b::a00:1', true],
    ['2002:a00:1::1', true],
    ['2001:0:a00:1::1', true],
    ['93.184.216.34', false],
    ['2606:4700::1111', false],
  ])('judges %s internal: %s', (address, internal) => {
    expect(isInternalAddress(address)).toBe(internal);
  });

  it('refuses loopback and names that resolve to it unless the allow-list admits them', async () => {
    await expect(outboundRequest(strict, 'webhooks', `${base}/`)).rejects.toMatchObject({ kind: 'refused' });
    await expect(outboundRequest(strict, 'webhooks', base.replace('127.0.0.1', 'localhost') + '/')).rejects.toMatchObject({ kind: 'refused' });
    const ok = await outboundRequest(allowLoopback, 'webhooks', `${base}/echo`, { method: 'POST', body: 'a=1' });
    expect(ok.status).toBe(200);
    expect(ok.body.toString()).toBe('got POST a=1');
    expect(ok.internal).toBe(true);
  });

  it('admits an internal address only for the feature, host and port an entry names', async () => {
    const webhooksHere = policy([{ feature: 'webhooks', host: '127.0.0.1', port: port() }]);
    expect((await outboundRequest(webhooksHere, 'webhooks', `${base}/echo`)).status).toBe(200);
    for (const feature of ['backchannel_logout', 'jwks_uri', 'captcha'] as const) {
      await expect(outboundRequest(webhooksHere, feature, `${base}/echo`)).rejects.toMatchObject({ kind: 'refused' });
    }
    // Another port of the same host, or the same port under another name: refused.
    await expect(outboundRequest(policy([{ feature: 'webhooks', host: '127.0.0.1', port: port() + 1 }]), 'webhooks', `${base}/echo`)).rejects.toMatchObject({
      kind: 'refused',
    });
    await expect(outboundRequest(webhooksHere, 'webhooks', base.replace('127.0.0.1', 'localhost') + '/echo')).rejects.toMatchObject({ kind: 'refused' });
    // `*` for the feature or the port.
    expect((await outboundRequest(policy([{ feature: '*', host: '127.0.0.1', port: port() }]), 'captcha', `${base}/echo`)).status).toBe(200);
    expect((await outboundRequest(policy([{ feature: 'jwks_uri', host: '127.0.0.1', port: '*' }]), 'jwks_uri', `${base}/echo`)).status).toBe(200);
  });

  it('judges a name at connection time by the addresses it resolves to: refused unless admitted', async () => {
    // The socket's lookup, asked for `localhost` (127.0.0.1) as a connection would ask for any name.
    const lookup = (admitted: (address: string) => boolean) =>
      new Promise<{ error: unknown; address: unknown; internal: boolean }>((resolve) => {
        let internal = false;
        guardedLookup(admitted, () => (internal = true))('localhost', { family: 4 }, (error, address) => resolve({ error, address, internal }));
      });
    const refused = await lookup(() => false);
    expect(refused.error).toBeInstanceOf(OutboundError);
    expect((refused.error as OutboundError).kind).toBe('refused');
    expect(refused.internal).toBe(false);
    expect(await lookup((address) => address === '127.0.0.1')).toEqual({ error: null, address: '127.0.0.1', internal: true });
  });

  it('refuses plain http to any host the allow-list does not admit, public ones included, without connecting', async () => {
    await expect(outboundRequest(strict, 'webhooks', 'http://93.184.216.34/hook')).rejects.toMatchObject({ kind: 'refused' });
    await expect(outboundRequest(strict, 'backchannel_logout', 'http://hooks.example.com/logout')).rejects.toMatchObject({ kind: 'refused' });
  });

  it('does not follow redirects, caps the response size, and times out', async () => {
    expect((await outboundRequest(allowLoopback, 'webhooks', `${base}/redirect`)).status).toBe(302);
    await expect(outboundRequest(allowLoopback, 'webhooks', `${base}/big`)).rejects.toMatchObject({ kind: 'too_large' });
    // An answer over the cap that arrives whole (one read): refused too, not resolved truncated, and no stray error event.
    const stray: unknown[] = [];
    const onStray = (err: unknown) => stray.push(err);
    process.on('uncaughtException', onStray);
    try {
      for (let i = 0; i < 3; i++) await expect(outboundRequest(allowLoopback, 'webhooks', `${base}/just-over`)).rejects.toMatchObject({ kind: 'too_large' });
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      process.off('uncaughtException', onStray);
    }
    expect(stray).toEqual([]);
    await expect(outboundRequest(allowLoopback, 'webhooks', `${base}/slow`)).rejects.toMatchObject({ kind: 'timeout' });
  });

  it('sends a body with its Content-Length, not chunked: a receiver that reads exactly that many bytes gets all of it', async () => {
    const receiver = await startRawReceiver();
    try {
      const body = `a=${'é'.repeat(300)}&b=2`;
      expect((await outboundRequest(allowLoopback, 'webhooks', `${receiver.url}/form`, { method: 'POST', body })).status).toBe(200);
      const got = await receiver.received.next(5_000, 'no request arrived');
      expect(got.headers['content-length']).toBe(String(Buffer.byteLength(body)));
      expect(got.headers['transfer-encoding']).toBeUndefined();
      expect(got.body).toBe(body);
    } finally {
      await receiver.close();
    }
  });

  it('refuses URLs it must not call', async () => {
    await expect(outboundRequest(allowLoopback, 'webhooks', 'ftp://127.0.0.1/x')).rejects.toMatchObject({ kind: 'invalid_url' });
    await expect(outboundRequest(allowLoopback, 'webhooks', 'http://user:pw@127.0.0.1/x')).rejects.toMatchObject({ kind: 'invalid_url' });
    await expect(outboundRequest(allowLoopback, 'webhooks', 'not a url')).rejects.toMatchObject({ kind: 'invalid_url' });
    await expect(outboundRequest(allowLoopback, 'webhooks', 'http://127.0.0.1:1/')).rejects.toMatchObject({ kind: 'unreachable' });
  });
});
