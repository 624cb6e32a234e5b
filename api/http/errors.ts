// Error responses. Every error leaves as JSON {error, error_description} with
// `Cache-Control: no-store`; nothing unexpected ever reaches the client as a
// stack trace or an HTML page.
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { Logger } from '../../runtime/log.js';

export function sendError(res: Response, status: number, error: string, description: string, headers: Record<string, string> = {}): void {
  res.status(status).set({ 'Cache-Control': 'no-store', ...headers }).json({ error, error_description: description });
}

/** For a path that exists but not with this method: 405 with an Allow header. */
export function methodNotAllowed(allowed: string[]): RequestHandler {
  return (req, res) => sendError(res, 405, 'invalid_request', `${req.method} is not allowed here; use ${allowed.join(' or ')}`, { Allow: allowed.join(', ') });
}

export const notFound: RequestHandler = (req, res) => sendError(res, 404, 'not_found', `no resource at ${req.method} ${req.path}`);

export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const e = err as { type?: string; status?: number; message?: string };
    if (e.type === 'entity.parse.failed' || e.type === 'entity.too.large' || e.type === 'encoding.unsupported') {
      sendError(res, e.status ?? 400, 'invalid_request', 'the request body could not be read');
      return;
    }
    log.error('unhandled error', { method: req.method, path: req.path, error: e.message ?? String(err) });
    if (res.headersSent) return;
    sendError(res, 500, 'server_error', 'the server could not complete the request');
  };
}
