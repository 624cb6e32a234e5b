// Limits on requests anyone can make that create something (device
// authorizations, pushed requests, proof-of-work challenges) or look something
// up (WebFinger): per client address and, once the client is authenticated,
// per client. Each request takes a slot (store/rate-limits.ts) before anything
// is created, so parallel requests cannot run past the limit; a refused one is
// 429 {error: "slow_down", error_description} with Retry-After.
import net from 'node:net';
import type { Request, RequestHandler, Response } from 'express';
import type { Config } from '../../lib/config/env.js';
import type { Store } from '../../lib/store/db.js';
import type { LimitRule } from '../../lib/model/rate-limits.js';
import { takeAttempt } from '../../lib/store/rate-limits.js';
import { sendError } from './errors.js';

export type RequestLimitConfig = Pick<Config['limits'], 'requestsPerIp' | 'requestsPerClient'>;

export interface RequestLimitDeps {
  store: Store;
  limits: RequestLimitConfig;
}

const WINDOW_MS = 60_000;

/**
 * The address a limit counts: an IPv4 address as is (also when it arrives
 * IPv4-mapped), an IPv6 address by its /64, the network one subscriber gets
 * and may draw any number of addresses from.
 */
export function clientAddress(req: Request): string {
  const ip = (req.ip ?? req.socket.remoteAddress ?? 'unknown').split('%')[0]!;
  if (!net.isIPv6(ip)) return ip;
  const groups = ipv6Groups(ip);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) return `${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}`;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail as two groups). */
function ipv6Groups(ip: string): number[] {
  const parse = (part: string) =>
    part === ''
      ? []
      : part.split(':').flatMap((g) => {
          if (!g.includes('.')) return [parseInt(g, 16)];
          const [a, b, c, d] = g.split('.').map(Number) as [number, number, number, number];
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head = '', tail] = ip.split('::');
  const front = parse(head);
  if (tail === undefined) return front;
  const back = parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/** Takes a slot of `key` under `rule`, or answers 429 slow_down and returns false. */
export async function admitRequest(
  store: Store,
  res: Response,
  key: string,
  rule: LimitRule,
  description: string,
  headers: Record<string, string> = {},
): Promise<boolean> {
  const taken = await takeAttempt(store, key, rule);
  if (taken.allowed) return true;
  sendError(res, 429, 'slow_down', description, { Pragma: 'no-cache', 'Retry-After': String(taken.retryAfter), ...headers });
  return false;
}

/** Middleware: `config.limits.requestsPerIp` requests per minute per client address to `endpoint`, counted before the body is read. */
export function limitPerIp(deps: RequestLimitDeps, endpoint: string, headers: Record<string, string> = {}): RequestHandler {
  const rule = { max: deps.limits.requestsPerIp, windowMs: WINDOW_MS };
  return async (req, res, next) => {
    if (await admitRequest(deps.store, res, `requests:${endpoint}:ip:${clientAddress(req)}`, rule, 'too many requests from this address; retry later', headers))
      next();
  };
}

/** `config.limits.requestsPerClient` requests per minute per authenticated client to `endpoint`; false after answering 429. */
export function admitClient(deps: RequestLimitDeps, res: Response, endpoint: string, clientId: string): Promise<boolean> {
  const rule = { max: deps.limits.requestsPerClient, windowMs: WINDOW_MS };
  return admitRequest(deps.store, res, `requests:${endpoint}:client:${clientId}`, rule, 'too many requests for this client; retry later');
}
