// A client span around each outbound HTTP call (webhooks, back-channel
// logout, jwks_uri and request_uri fetches, captcha checks), with W3C trace
// context sent along so a receiver that traces joins the trace. The span names
// the feature, method and host: never the URL's path or query, which may
// carry a token, nor the body.
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { tracer } from './tracing.js';

/** `send` makes the call with the headers given (the caller's, and the trace context's). */
export async function tracedOutboundRequest<R extends { status: number }>(
  feature: string,
  method: string,
  url: string,
  callerHeaders: Record<string, string> | undefined,
  send: (headers: Record<string, string>) => Promise<R>,
): Promise<R> {
  const target = URL.parse(url);
  const span = tracer().startSpan(`${method} ${feature}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'http.request.method': method,
      'keyflow.outbound.feature': feature,
      ...(target ? { 'server.address': target.hostname, 'server.port': Number(target.port || (target.protocol === 'https:' ? 443 : 80)) } : {}),
    },
  });
  const active = trace.setSpan(context.active(), span);
  const headers: Record<string, string> = { ...callerHeaders };
  propagation.inject(active, headers);
  try {
    const response = await context.with(active, () => send(headers));
    span.setAttribute('http.response.status_code', response.status);
    if (response.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
    return response;
  } catch (err) {
    // The error's kind (refused, timeout, unreachable…): its message may name internal addresses.
    const kind = (err as { kind?: unknown }).kind;
    span.setAttribute('error.type', typeof kind === 'string' ? kind : 'error');
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw err;
  } finally {
    span.end();
  }
}
