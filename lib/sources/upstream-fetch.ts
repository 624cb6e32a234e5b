// openid-client's HTTP calls to an upstream (discovery, token, JWKS,
// UserInfo, an oauth2 source's profile endpoint) made through Keyflow's one
// outbound client under the feature `oauth_sources`: https only, no
// redirects, a timeout and a response cap, and no internal address or plain
// http unless OUTBOUND_ALLOWLIST admits it. The upstream's answer comes back
// as a Fetch API Response, which is what openid-client reads.
import type * as oidc from 'openid-client';
import { admitsUrl, OutboundError, outboundRequest, type OutboundPolicy, type OutboundResponse } from '../runtime/http-client.js';

export const UPSTREAM_FEATURE = 'oauth_sources';

type FetchOptions = Parameters<oidc.CustomFetch>[1];

/** Statuses whose Response may carry no body (the constructor refuses one). */
const NULL_BODY = new Set([101, 204, 205, 304]);

function bodyOf(body: FetchOptions['body']): string | Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  // openid-client sends forms, JSON and nothing else; a stream would be a change worth noticing.
  throw new OutboundError('invalid_url', 'a streamed request body is not sent upstream');
}

function responseOf(answer: OutboundResponse): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return new Response(NULL_BODY.has(answer.status) ? null : new Uint8Array(answer.body), { status: answer.status, headers });
}

/** The custom fetch openid-client calls for every request to the upstream of one source. */
export function upstreamFetch(policy: OutboundPolicy): oidc.CustomFetch {
  return async (url, options) => {
    options.signal?.throwIfAborted();
    const method = options.method.toUpperCase();
    if (method !== 'GET' && method !== 'POST') throw new OutboundError('invalid_url', `${method} is not sent upstream`);
    const headers = Object.fromEntries(new Headers(options.headers).entries());
    const answer = await outboundRequest(policy, UPSTREAM_FEATURE, url, { method, headers, body: bodyOf(options.body) });
    return responseOf(answer);
  };
}

/**
 * Whether openid-client may use plain http for `urls`: only when every http
 * one is admitted by the allow-list. Throws, naming the URL for the
 * operator, when one is http and not admitted; false when all are https.
 */
export function plainHttpAdmitted(policy: Pick<OutboundPolicy, 'allow'>, slug: string, urls: readonly URL[]): boolean {
  const plain = urls.filter((u) => u.protocol === 'http:');
  const refused = plain.find((u) => !admitsUrl(policy, UPSTREAM_FEATURE, u));
  if (refused)
    throw new OutboundError(
      'refused',
      `OAuth source ${slug}: plain http to ${refused.host} is not admitted (OUTBOUND_ALLOWLIST has no ${UPSTREAM_FEATURE} entry for it)`,
    );
  return plain.length > 0;
}

/** The operator's reason when the outbound policy stopped an upstream call (openid-client wraps it as the cause), else ''. */
export function outboundRefusal(err: unknown): string {
  for (let e = err, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++) if (e instanceof OutboundError) return `${e.kind}: ${e.message}`;
  return '';
}
