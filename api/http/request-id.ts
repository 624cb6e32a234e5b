// The first middleware: gives each request an id (X-Request-Id, echoed in the
// response) and records the client's address and user agent for whatever the
// request causes (the audit trail and the log lines read them through
// lib/runtime/request-context.ts). An incoming X-Request-Id is kept only from
// a trusted proxy (TRUSTED_PROXIES) and only when it is a plain token: anyone
// else could choose the id their requests are logged and audited under.
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { z } from 'zod';
import { runInRequest } from '../../lib/runtime/request-context.js';

/** An incoming X-Request-Id: letters, digits, `.`, `_`, `-`; at most 64. */
const RequestIdHeader = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/);
const USER_AGENT_MAX = 256;

/** Whether the direct peer is a proxy TRUSTED_PROXIES names (Express compiles `trust proxy` into this function). */
function fromTrustedProxy(req: Request): boolean {
  const trust = req.app.get('trust proxy fn') as ((address: string, hop: number) => boolean) | undefined;
  const peer = req.socket.remoteAddress;
  return typeof trust === 'function' && peer !== undefined && trust(peer, 0);
}

/** After `trust proxy` is set: req.ip is then the client's address as TRUSTED_PROXIES allows. */
export function requestContext(req: Request, res: Response, next: NextFunction): void {
  const incoming = RequestIdHeader.safeParse(req.get('x-request-id'));
  const requestId = incoming.success && fromTrustedProxy(req) ? incoming.data : randomUUID();
  res.setHeader('X-Request-Id', requestId);
  const userAgent = req.get('user-agent')?.slice(0, USER_AGENT_MAX);
  runInRequest({ requestId, ...(req.ip ? { ip: req.ip } : {}), ...(userAgent ? { userAgent } : {}) }, next);
}
