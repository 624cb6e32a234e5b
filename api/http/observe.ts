// What every request leaves for the people who run Keyflow: a server span
// (when tracing is on) named after the route template, the request metrics and
// an access-log line. Only facts from fixed sets are recorded: the method, the
// route template (never the path, which may carry a code or a token), the
// status, the OAuth error code, and the client and grant a handler names with
// describeRequest(). The client's address and user agent go on the span only
// when the operator opts in (TRACE_CLIENT_ADDRESS).
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { isTracing, tracer } from '../../lib/observability/tracing.js';
import { realTimeMs } from '../../lib/runtime/clock.js';

/** What a handler knows of its request that the route does not say. */
export interface RequestFacts {
  clientId?: string;
  grantType?: string;
}

interface Observed extends RequestFacts {
  /** The OAuth error code answered (sendError). */
  error?: string;
}

const FACTS = Symbol('keyflow.request-facts');
type WithFacts = Response & { [FACTS]?: Observed };

/** Names the client and grant of this request, for its span, metrics and access-log line. */
export function describeRequest(res: Response, facts: RequestFacts): void {
  const observed = ((res as WithFacts)[FACTS] ??= {});
  Object.assign(observed, facts);
  const span = trace.getActiveSpan();
  if (facts.clientId) span?.setAttribute('keyflow.client_id', facts.clientId);
  if (facts.grantType) span?.setAttribute('oauth.grant_type', facts.grantType);
}

/** The OAuth error code a response carries (called where error responses are sent). */
export function noteErrorCode(res: Response, error: string): void {
  ((res as WithFacts)[FACTS] ??= {}).error = error;
}

/** The route template that answered, or what stands for it when none did. */
export function routeOf(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path === 'string') return `${req.baseUrl}${path}`;
  return path === undefined ? 'unmatched' : 'other';
}

export interface FinishedRequest {
  method: string;
  route: string;
  status: number;
  durationMs: number;
  clientId?: string;
  grantType?: string;
  error?: string;
}

export interface ObserveOptions {
  /** TRACE_CLIENT_ADDRESS: the client's address and user agent on the span. */
  clientAddress: boolean;
  /** Called once per answered (or abandoned) request: metrics, the access log. */
  onFinish: (request: FinishedRequest, res: Response) => void;
}

/** The first middleware: everything after it runs inside the request's span. */
export function observeRequests(options: ObserveOptions): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = realTimeMs();
    const span = isTracing() ? startServerSpan(req, options.clientAddress) : undefined;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      const facts = (res as WithFacts)[FACTS] ?? {};
      // An abandoned request (the client went away before the answer) is counted with the status it was given, if any.
      const status = res.headersSent ? res.statusCode : 499;
      const finished: FinishedRequest = { method: req.method, route: routeOf(req), status, durationMs: realTimeMs() - started, ...facts };
      if (span) endServerSpan(span, finished);
      options.onFinish(finished, res);
    };
    res.once('finish', finish);
    res.once('close', finish);
    if (!span) return next();
    context.with(trace.setSpan(context.active(), span), next);
  };
}

function startServerSpan(req: Request, clientAddress: boolean): Span {
  const parent = propagation.extract(context.active(), req.headers);
  const attributes: Attributes = { 'http.request.method': req.method, 'url.scheme': req.protocol };
  if (clientAddress) {
    if (req.ip) attributes['client.address'] = req.ip;
    const agent = req.get('user-agent');
    if (agent) attributes['user_agent.original'] = agent.slice(0, 256);
  }
  return tracer().startSpan(req.method, { kind: SpanKind.SERVER, attributes }, parent);
}

function endServerSpan(span: Span, request: FinishedRequest): void {
  span.updateName(`${request.method} ${request.route}`);
  span.setAttribute('http.route', request.route);
  span.setAttribute('http.response.status_code', request.status);
  if (request.error) span.setAttribute('keyflow.outcome', request.error);
  else span.setAttribute('keyflow.outcome', request.status < 400 ? 'ok' : `http_${request.status}`);
  // Server spans are errors for 5xx only: a 4xx is the client's mistake (OpenTelemetry's HTTP conventions).
  if (request.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
