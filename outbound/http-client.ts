// The one HTTP client for every URL Keyflow calls out to (back-channel logout,
// later webhooks and jwks_uri): a timeout, a response-size cap, no redirects
// followed, and no connection to loopback, private, link-local or otherwise
// internal addresses unless the operator's allow-list admits the host. The
// address check happens in the socket's DNS lookup, so a name that resolves
// to an internal address is refused even if it changed since a first look.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';

export interface OutboundPolicy {
  timeoutMs: number;
  maxResponseBytes: number;
  /** Host names or IP addresses admitted even though they are internal (e.g. localhost for tests). */
  allowHosts: string[];
}

export type OutboundErrorKind = 'refused' | 'timeout' | 'unreachable' | 'too_large' | 'invalid_url';

export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  durationMs: number;
}

const BLOCKED = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) BLOCKED.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) BLOCKED.addSubnet(prefix, bits, 'ipv6');

export function isInternalAddress(address: string): boolean {
  const family = net.isIPv6(address) ? 'ipv6' : 'ipv4';
  // IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED.check(mapped[1]!, 'ipv4');
  return BLOCKED.check(address, family);
}

/**
 * The host of `target` when the URL itself names an internal address — an IP
 * literal in a blocked range, or `localhost` — that the allow-list does not
 * admit; null otherwise. (Names that merely resolve to such an address are
 * refused at connection time, by the guarded lookup.)
 */
export function refusedHost(policy: Pick<OutboundPolicy, 'allowHosts'>, target: URL): string | null {
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (policy.allowHosts.includes(host)) return null;
  const internal = host === 'localhost' || host.endsWith('.localhost') || (net.isIP(host) !== 0 && isInternalAddress(host));
  return internal ? host : null;
}

function guardedLookup(allowed: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as dns.LookupAddress[];
      const bad = list.find((a) => isInternalAddress(a.address));
      if (bad && !allowed) return callback(new OutboundError('refused', `${hostname} resolves to an internal address (${bad.address})`), '', 0);
      if ((options as dns.LookupOptions).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** POSTs or GETs `url` under the policy. Never follows redirects; a 3xx is returned as is. */
export function outboundRequest(
  policy: OutboundPolicy,
  url: string,
  init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<OutboundResponse> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.reject(new OutboundError('invalid_url', 'not an absolute URL'));
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') return Promise.reject(new OutboundError('invalid_url', 'only http(s) URLs'));
  if (target.username || target.password) return Promise.reject(new OutboundError('invalid_url', 'URLs with credentials are refused'));
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const allowed = policy.allowHosts.includes(host);
  const refused = refusedHost(policy, target);
  if (refused) return Promise.reject(new OutboundError('refused', `${refused} is an internal address`));

  const started = performance.now();
  const lib = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      target,
      { method: init.method ?? 'GET', headers: { 'user-agent': 'Keyflow/0.1 (+https://github.com/keyflow)', ...init.headers }, lookup: guardedLookup(allowed), timeout: policy.timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > policy.maxResponseBytes) {
            req.destroy(new OutboundError('too_large', `response larger than ${policy.maxResponseBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), durationMs: Math.round(performance.now() - started) }));
        res.on('error', (err) => reject(classify(err)));
      },
    );
    // One deadline for the whole exchange, not only for idle sockets.
    const deadline = setTimeout(() => req.destroy(new OutboundError('timeout', `no complete answer within ${policy.timeoutMs} ms`)), policy.timeoutMs);
    req.on('close', () => clearTimeout(deadline));
    req.on('timeout', () => req.destroy(new OutboundError('timeout', `no answer within ${policy.timeoutMs} ms`)));
    req.on('error', (err) => reject(classify(err)));
    if (init.body !== undefined) req.write(init.body);
    req.end();
  });
}

function classify(err: unknown): OutboundError {
  if (err instanceof OutboundError) return err;
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ETIMEDOUT') return new OutboundError('timeout', e.message);
  return new OutboundError('unreachable', e.code ? `${e.code}: ${e.message}` : String(e.message ?? err));
}
