// Error responses. Every error leaves as JSON {error, error_description} with
// `Cache-Control: no-store` (or, on the browser pages, Keyflow's error page);
// nothing unexpected ever reaches the client as a stack trace. A dependency
// unavailable or too slow (lib/runtime/unavailable.ts) is a 503 with
// Retry-After, whichever route met it.
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { Logger } from '../../lib/runtime/log.js';
import { countUnavailable } from '../../lib/runtime/metrics.js';
import { RETRY_AFTER_SECONDS, unavailableDependency } from '../../lib/runtime/unavailable.js';
import { sendErrorPage } from '../html/layout.js';
import { noteErrorCode } from './observe.js';

export function sendError(res: Response, status: number, error: string, description: string, headers: Record<string, string> = {}): void {
  noteErrorCode(res, error);
  res
    .status(status)
    .set({ 'Cache-Control': 'no-store', ...headers })
    .json({ error, error_description: description });
}

/** For a path that exists but not with this method: 405 with an Allow header. */
export function methodNotAllowed(allowed: string[]): RequestHandler {
  return (req, res) => sendError(res, 405, 'invalid_request', `${req.method} is not allowed here; use ${allowed.join(' or ')}`, { Allow: allowed.join(', ') });
}

/**
 * No route answered: a page for a browser (one of its paths, or a request that
 * prefers HTML to JSON), JSON for an API client.
 */
export const notFound: RequestHandler = (req, res) => {
  if (BROWSER_PATHS.test(req.path) || req.accepts(['json', 'html']) === 'html') {
    return sendErrorPage(res, 404, 'Page not found', 'There is no page at this address. Check the link, or start again from your account.');
  }
  sendError(res, 404, 'not_found', `no resource at ${req.method} ${req.path}`);
};

/**
 * Bodies are parsed per route, and a request whose body a route's parser does
 * not take (no body, another content type) would leave `req.body` undefined:
 * it is an empty object instead, so no handler can trip over it.
 */
export const defaultBody: RequestHandler = (req, _res, next) => {
  req.body = {};
  next();
};

/** Paths a browser navigates to (forms and links): their errors are pages, not JSON. Any case, as Express routes them. */
const BROWSER_PATHS =
  /^\/(?:login|logout|signup|consent|device|account|admin|oauth\/2fa|assets)(?:\/|$)|^\/api\/oauth\/(?:authorize|end_session|2fa\/authorize)(?:\/|$)/i;

/**
 * The answer to a request a dependency (MongoDB, Temporal) could not serve in
 * time: 503 with Retry-After, as JSON `temporarily_unavailable` (RFC 6749's
 * name for it) or, on the browser's paths, the error page.
 */
export function sendUnavailable(req: Request, res: Response): void {
  const headers = { 'Retry-After': String(RETRY_AFTER_SECONDS) };
  if (BROWSER_PATHS.test(req.path)) {
    res.set(headers);
    return sendErrorPage(res, 503, 'Temporarily unavailable', 'Keyflow cannot answer right now. Try again in a few seconds.');
  }
  sendError(res, 503, 'temporarily_unavailable', 'the service is temporarily unavailable; try again shortly', headers);
}

/**
 * Client errors raised by the HTTP layer itself (body parsers: a malformed or
 * oversized body, an unsupported charset or Content-Encoding, too many
 * parameters; static files: a missing asset) carry a 4xx `status`: they are
 * answered with that status, never a 500.
 */
function clientErrorStatus(err: unknown): number | null {
  const status = (err as { status?: unknown; statusCode?: unknown }).status ?? (err as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : null;
}

const CLIENT_ERROR_DESCRIPTIONS: Record<number, string> = {
  404: 'no such resource',
  413: 'the request is too large',
  415: 'the request body has an unsupported charset or encoding',
};

export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    if (res.headersSent) return;
    const status = clientErrorStatus(err);
    if (status !== null) {
      const description = CLIENT_ERROR_DESCRIPTIONS[status] ?? 'the request could not be read';
      if (BROWSER_PATHS.test(req.path))
        return sendErrorPage(res, status, status === 404 ? 'Not found' : 'Bad request', `Keyflow could not use this request: ${description}.`);
      return sendError(res, status, status === 404 ? 'not_found' : 'invalid_request', description);
    }
    const error = (err as { message?: string }).message ?? String(err);
    const dependency = unavailableDependency(err);
    if (dependency) {
      countUnavailable(dependency);
      log.warn('dependency unavailable: answered 503', { method: req.method, path: req.path, error: error.split('\n')[0] });
      return sendUnavailable(req, res);
    }
    log.error('unhandled error', { method: req.method, path: req.path, error });
    sendError(res, 500, 'server_error', 'the server could not complete the request');
  };
}
