// The outbound HTTP client's safety policy, against real local servers.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isInternalAddress, outboundRequest, type OutboundPolicy } from '../outbound/http-client.js';

let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/redirect') return void res.writeHead(302, { location: 'http://example.com/' }).end();
    if (req.url === '/big') return void res.end(Buffer.alloc(64 * 1024, 1));
    if (req.url === '/slow') return void setTimeout(() => res.end('late'), 2_000);
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end(`got ${req.method} ${body}`));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));

const allowLoopback: OutboundPolicy = { timeoutMs: 500, maxResponseBytes: 1024, allowHosts: ['127.0.0.1', 'localhost'] };
const strict: OutboundPolicy = { ...allowLoopback, allowHosts: [] };

describe('outbound HTTP client', () => {
  it.each([
    ['127.0.0.1', true], ['10.1.2.3', true], ['172.16.0.1', true], ['192.168.1.1', true], ['169.254.169.254', true],
    ['::1', true], ['fe80::1', true], ['fd00::1', true], ['::ffff:127.0.0.1', true], ['0.0.0.0', true],
    ['93.184.216.34', false], ['2606:4700::1111', false],
  ])('judges %s internal: %s', (address, internal) => {
    expect(isInternalAddress(address)).toBe(internal);
  });

  it('refuses loopback and names that resolve to it unless the allow-list admits them', async () => {
    await expect(outboundRequest(strict, `${base}/`)).rejects.toMatchObject({ kind: 'refused' });
    await expect(outboundRequest(strict, base.replace('127.0.0.1', 'localhost') + '/')).rejects.toMatchObject({ kind: 'refused' });
    const ok = await outboundRequest(allowLoopback, `${base}/echo`, { method: 'POST', body: 'a=1' });
    expect(ok.status).toBe(200);
    expect(ok.body.toString()).toBe('got POST a=1');
  });

  it('does not follow redirects, caps the response size, and times out', async () => {
    expect((await outboundRequest(allowLoopback, `${base}/redirect`)).status).toBe(302);
    await expect(outboundRequest(allowLoopback, `${base}/big`)).rejects.toMatchObject({ kind: 'too_large' });
    await expect(outboundRequest(allowLoopback, `${base}/slow`)).rejects.toMatchObject({ kind: 'timeout' });
  });

  it('refuses URLs it must not call', async () => {
    await expect(outboundRequest(allowLoopback, 'ftp://127.0.0.1/x')).rejects.toMatchObject({ kind: 'invalid_url' });
    await expect(outboundRequest(allowLoopback, 'http://user:pw@127.0.0.1/x')).rejects.toMatchObject({ kind: 'invalid_url' });
    await expect(outboundRequest(allowLoopback, 'not a url')).rejects.toMatchObject({ kind: 'invalid_url' });
    await expect(outboundRequest(allowLoopback, 'http://127.0.0.1:1/')).rejects.toMatchObject({ kind: 'unreachable' });
  });
});
