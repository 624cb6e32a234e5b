// The first middleware: gives each request an id (X-Request-Id, echoed in the
// response; a proxy's own kept when it is a plain token) and records the
// client's address and user agent for whatever the request causes (the audit
// trail reads them through lib/runtime/request-context.ts).
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { runInRequest } from '../../lib/runtime/request-context.js';

/** An incoming X-Request-Id: letters, digits, `.`, `_`, `-`; at most 64. */
const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
const USER_AGENT_MAX = 256;

/** After `trust proxy` is set: req.ip is then the client's address as TRUSTED_PROXIES allows. */
export function requestContext(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.get('x-request-id');
  const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('X-Request-Id', requestId);
  const userAgent = req.get('user-agent')?.slice(0, USER_AGENT_MAX);
  runInRequest({ requestId, ...(req.ip ? { ip: req.ip } : {}), ...(userAgent ? { userAgent } : {}) }, next);
}
