// The one HTTP client for every URL Keyflow calls out to (webhooks,
// back-channel logout, jwks_uri, captcha verification): a timeout, a
// response-size cap, no redirects followed, https only, and no connection to
// loopback, private, link-local or otherwise internal addresses. The
// operator's allow-list (OUTBOUND_ALLOWLIST) admits an internal address, or
// plain http, for one feature, host and port at a time: every call names its
// feature. The address check happens in the socket's DNS lookup, so a name
// that resolves to an internal address is refused even if it changed since a
// first look.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { OutboundAllowEntry, OutboundFeature } from '../config/env.js';
import { isTracing } from '../observability/tracing.js';
import { tracedOutboundRequest } from '../observability/outbound-spans.js';

export interface OutboundPolicy {
  timeoutMs: number;
  maxResponseBytes: number;
  /** OUTBOUND_ALLOWLIST: which feature may reach which internal (or plain-http) host and port. */
  allow: readonly OutboundAllowEntry[];
}

export type OutboundErrorKind = 'refused' | 'timeout' | 'unreachable' | 'too_large' | 'invalid_url';

/** An outbound failure: its `kind` is all a user is ever shown; the message is for the operator. */
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
  /** The answer came from an internal address (which the allow-list admitted): its content is not for users' eyes. */
  internal: boolean;
}

const BLOCKED = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED.addSubnet(prefix, bits, 'ipv4');
// IPv6 ranges that carry or reach an IPv4 address (IPv4-compatible ::/96, NAT64 64:ff9b::/96,
// 6to4 2002::/16, Teredo 2001::/32) are refused whole: they could lead to an internal IPv4 host.
for (const [prefix, bits] of [
  ['::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2002::', 16],
  ['2001::', 32],
] as const) {
  BLOCKED.addSubnet(prefix, bits, 'ipv6');
}

export function isInternalAddress(address: string): boolean {
  const family = net.isIPv6(address) ? 'ipv6' : 'ipv4';
  // IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED.check(mapped[1]!, 'ipv4');
  return BLOCKED.check(address, family);
}

/** The host of a URL as allow-list entries and resolved addresses spell it: lower case, IPv6 without brackets. */
const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
const portOf = (url: URL) => (url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);

/** Whether the allow-list lets `feature` reach `host` (a name or an address) on `port`. */
function admits(allow: readonly OutboundAllowEntry[], feature: OutboundFeature, host: string, port: number): boolean {
  return allow.some((e) => (e.feature === '*' || e.feature === feature) && e.host === host && (e.port === '*' || e.port === port));
}

/** Whether the allow-list admits the host and port of `target` for `feature`: then it may be internal, and plain http. */
export function admitsUrl(policy: Pick<OutboundPolicy, 'allow'>, feature: OutboundFeature, target: URL): boolean {
  return admits(policy.allow, feature, bareHost(target), portOf(target));
}

/** A host that names an internal address by itself: an IP literal in a blocked range, or localhost. */
function namesInternalAddress(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || (net.isIP(host) !== 0 && isInternalAddress(host));
}

/**
 * The host of `target` when the URL itself names an internal address — an IP
 * literal in a blocked range, or `localhost` — that the allow-list does not
 * admit for `feature` on the URL's port; null otherwise. (Names that merely
 * resolve to such an address are refused at connection time, by the guarded lookup.)
 */
export function refusedHost(policy: Pick<OutboundPolicy, 'allow'>, feature: OutboundFeature, target: URL): string | null {
  const host = bareHost(target);
  return namesInternalAddress(host) && !admitsUrl(policy, feature, target) ? host : null;
}

/**
 * A DNS lookup that refuses a name resolving to an internal address `admitted`
 * does not accept, and calls `internal` when it hands one out. (Exported for
 * its test: no other name than localhost resolves to loopback everywhere.)
 */
export function guardedLookup(admitted: (address: string) => boolean, internal: () => void): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses;
      const inside = list.filter((a) => isInternalAddress(a.address));
      if (inside.some((a) => !admitted(a.address))) return callback(new OutboundError('refused', `${hostname} resolves to an internal address`), '', 0);
      if (inside.length > 0) internal();
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/**
 * POSTs or GETs `url` for `feature` under the policy. Never follows redirects;
 * a 3xx is returned as is. Plain http, and internal addresses (named in the
 * URL or resolved from it), only where an allow-list entry admits the feature,
 * host (the URL's or the resolved address) and port.
 */
export function outboundRequest(policy: OutboundPolicy, feature: OutboundFeature, url: string, init: OutboundInit = {}): Promise<OutboundResponse> {
  if (!isTracing()) return send(policy, feature, url, init);
  return tracedOutboundRequest(feature, init.method ?? 'GET', url, init.headers, (headers) => send(policy, feature, url, { ...init, headers }));
}

export interface OutboundInit {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
}

function send(policy: OutboundPolicy, feature: OutboundFeature, url: string, init: OutboundInit): Promise<OutboundResponse> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.reject(new OutboundError('invalid_url', 'not an absolute URL'));
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') return Promise.reject(new OutboundError('invalid_url', 'only http(s) URLs'));
  if (target.username || target.password) return Promise.reject(new OutboundError('invalid_url', 'URLs with credentials are refused'));
  const host = bareHost(target);
  const port = portOf(target);
  const hostAdmitted = admitsUrl(policy, feature, target);
  // Defense in depth: the URL checks at registration refuse plain http already.
  if (target.protocol === 'http:' && !hostAdmitted)
    return Promise.reject(new OutboundError('refused', `plain http to ${host}:${port} is not admitted for ${feature}`));
  if (namesInternalAddress(host) && !hostAdmitted)
    return Promise.reject(new OutboundError('refused', `${host}:${port} is an internal address not admitted for ${feature}`));

  // An IP literal is connected to without a lookup; a name is judged by what it resolves to.
  let internal = net.isIP(host) !== 0 && isInternalAddress(host);
  const lookup = guardedLookup(
    (address) => hostAdmitted || admits(policy.allow, feature, address, port),
    () => (internal = true),
  );
  const started = performance.now();
  const lib = target.protocol === 'https:' ? https : http;
  // A body goes with its length, never chunked: some receivers (Python's http.server)
  // read exactly Content-Length bytes and see an empty body without it.
  const length = init.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(init.body)) };
  return new Promise((resolve, reject) => {
    const req = lib.request(
      target,
      {
        method: init.method ?? 'GET',
        headers: { 'user-agent': 'Keyflow/0.1 (+https://github.com/keyflow)', ...init.headers, ...length },
        lookup,
        timeout: policy.timeoutMs,
      },
      (res) => {
        const remote = res.socket.remoteAddress;
        if (remote && net.isIP(remote) !== 0 && isInternalAddress(remote)) internal = true;
        const chunks: Buffer[] = [];
        let size = 0;
        let tooLarge = false;
        res.on('data', (chunk: Buffer) => {
          if (tooLarge) return;
          size += chunk.length;
          if (size > policy.maxResponseBytes) {
            // Refused here and now: an answer that arrived whole would still end (and resolve, truncated),
            // and destroying with an error once it has ended raises that error where no one listens.
            tooLarge = true;
            reject(new OutboundError('too_large', `response larger than ${policy.maxResponseBytes} bytes`));
            req.destroy();
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          if (tooLarge) return;
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
            durationMs: Math.round(performance.now() - started),
            internal,
          });
        });
        res.on('error', (err) => reject(classify(err)));
      },
    );
    // One deadline for the whole exchange, not only for idle sockets.
    const deadline = setTimeout(() => req.destroy(new OutboundError('timeout', `no complete answer within ${policy.timeoutMs} ms`)), policy.timeoutMs);
    req.on('close', () => clearTimeout(deadline));
    req.on('timeout', () => req.destroy(new OutboundError('timeout', `no answer within ${policy.timeoutMs} ms`)));
    req.on('error', (err) => reject(classify(err)));
    req.end(init.body);
  });
}

/**
 * An error as an OutboundError. Its message is for the operator's logs (it may
 * name addresses and system errors); users are only ever shown its kind.
 */
function classify(err: unknown): OutboundError {
  if (err instanceof OutboundError) return err;
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ETIMEDOUT') return new OutboundError('timeout', e.message);
  return new OutboundError('unreachable', e.code ? `${e.code}: ${e.message}` : String(e.message ?? err));
}
