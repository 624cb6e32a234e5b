// X-Request-Id over HTTP: every response carries one; an incoming one is kept
// only from a trusted proxy (TRUSTED_PROXIES, here loopback: the test's own
// connections) and only when it is a plain token; a client that is not a
// trusted proxy cannot choose the id its requests are logged and audited under.
import { useTestApi } from '../../support/harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// The test's connections come from 127.0.0.1: a trusted proxy for the first api, a client for the second.
const behindProxy = useTestApi({ TRUSTED_PROXIES: 'loopback' });
const direct = useTestApi({ TRUSTED_PROXIES: '192.0.2.1' });

const requestId = async (base: string, path: string, sent?: string) =>
  (await fetch(`${base}${path}`, { headers: sent === undefined ? {} : { 'x-request-id': sent } })).headers.get('x-request-id');

describe('X-Request-Id', () => {
  it('keeps a trusted proxy’s plain-token id, and echoes it', async () => {
    expect(await requestId(behindProxy.url, '/healthz', 'proxy-id_1.a')).toBe('proxy-id_1.a');
    expect(await requestId(behindProxy.url, '/no-such-page', 'proxy-id-404')).toBe('proxy-id-404');
  });

  it('replaces an id that is not a plain token of at most 64 characters, even from a trusted proxy', async () => {
    for (const sent of ['has space', 'a/b', 'x'.repeat(65), '', 'id;drop']) expect(await requestId(behindProxy.url, '/healthz', sent)).toMatch(UUID);
    expect(await requestId(behindProxy.url, '/healthz', 'x'.repeat(64))).toBe('x'.repeat(64));
  });

  it('replaces the id a client that is not a trusted proxy sends, and gives one to a request without', async () => {
    expect(await requestId(direct.url, '/healthz', 'client-chosen-id')).toMatch(UUID);
    const first = await requestId(direct.url, '/healthz');
    const second = await requestId(direct.url, '/healthz');
    expect(first).toMatch(UUID);
    expect(second).toMatch(UUID);
    expect(first).not.toBe(second);
  });
});
