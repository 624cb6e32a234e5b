// How the authorization response travels back to the client: `response_mode`
// (OAuth 2.0 Multiple Response Type Encoding Practices §2.1) with `query`, the
// default for response_type=code, `fragment`, the default for the implicit
// flow's response types, and `form_post` (OAuth 2.0 Form Post Response Mode),
// for either; and their JWT forms (JWT Secured Authorization Response Mode,
// JARM §2.3): `query.jwt`, `fragment.jwt` and `form_post.jwt` carry one
// `response` parameter, a JWT Keyflow signs holding the response's parameters,
// and `jwt` names the JWT form of the response type's default. Pure.
//
// `fragment` is refused for a code: it exists for responses that carry tokens,
// which must stay out of the query (Multiple Response Types §2.1, §5). A
// fragment is also carried over every later redirect that has none of its own,
// so a code in it would travel on wherever the redirect URI's page redirects
// to. `query` is refused for the implicit flow: its tokens would sit in a query
// string, in server logs and Referer headers.
//
// The JWT forms follow the same rules, for the same reasons: signing the
// response protects its integrity, not its secrecy, and a code or token inside
// the JWT is as readable as one beside it. So `fragment.jwt` is refused for a
// code (JARM allows it; Keyflow keeps codes out of fragments), and `query.jwt`
// for the implicit flow (JARM §2.3.1: not with a response type that contains
// `token` or `id_token` unless the JWT is encrypted, and Keyflow does not
// encrypt responses). `jwt` is then `query.jwt` for a code and `fragment.jwt`
// for the implicit types (JARM §2.3.4), always an allowed pair; it is resolved
// when the request is read, so a stored request holds the mode it answers in.
//
// A refused `*.jwt` mode is answered in the `jwt` form of the type's default:
// the client asked for a signed response and may accept nothing else (FAPI).
import type { ResponseType } from './response-type.js';

/** The modes a response is sent in. */
export const PLAIN_RESPONSE_MODES = ['query', 'fragment', 'form_post'] as const;
export const JWT_RESPONSE_MODES = ['query.jwt', 'fragment.jwt', 'form_post.jwt'] as const;
export type JwtResponseMode = (typeof JWT_RESPONSE_MODES)[number];
export type ResponseMode = (typeof PLAIN_RESPONSE_MODES)[number] | JwtResponseMode;

/** Every `response_mode` a request may name (discovery's response_modes_supported): the modes, and `jwt`. */
export const RESPONSE_MODES = [...PLAIN_RESPONSE_MODES, 'jwt', ...JWT_RESPONSE_MODES] as const;

/** The mode for response_type=code when the request names none (Multiple Response Types §2.1). */
export const DEFAULT_RESPONSE_MODE: ResponseMode = 'query';

/** The mode a request of `type` gets when it names none (Multiple Response Types §2.1: query for code, fragment for the rest). */
export const defaultResponseMode = (type: ResponseType): ResponseMode => (type === 'code' ? DEFAULT_RESPONSE_MODE : 'fragment');

/** What `response_mode=jwt` means for `type` (JARM §2.3.4): query.jwt for a code, fragment.jwt for the rest. */
export const defaultJwtResponseMode = (type: ResponseType): JwtResponseMode => (type === 'code' ? 'query.jwt' : 'fragment.jwt');

/** Whether the response goes inside a signed JWT (JARM). */
export const isJwtResponseMode = (mode: ResponseMode | undefined): mode is JwtResponseMode => (JWT_RESPONSE_MODES as readonly string[]).includes(mode ?? '');

/** Where and how a response goes: the client it answers, the request's redirect URI and mode, and its `state` to send back. */
export interface ResponseTarget {
  /** The audience of a JWT response (JARM §2.1), whose registered algorithm signs it. */
  clientId: string;
  redirectUri: string;
  /** Absent on requests stored before response modes existed: those answer by query. */
  responseMode?: ResponseMode;
  state: string | null;
}

export type ResponseModeCheck = { ok: true; mode: ResponseMode } | { ok: false; description: string };

/**
 * The request's `response_mode` (undefined: absent) for a request of `type`.
 * Every redirect URI is http(s) (redirect-uri.ts), so a page can post a form to it.
 */
export function parseResponseMode(value: string | undefined, type: ResponseType): ResponseModeCheck {
  if (value === undefined) return { ok: true, mode: defaultResponseMode(type) };
  if (value === 'jwt') return { ok: true, mode: defaultJwtResponseMode(type) };
  if (value === 'form_post' || value === 'form_post.jwt') return { ok: true, mode: value };
  if (type === 'code') {
    if (value === 'query' || value === 'query.jwt') return { ok: true, mode: value };
    if (value === 'fragment' || value === 'fragment.jwt')
      return { ok: false, description: `response_mode=${value} is not supported: Keyflow answers with a code by query or form_post, or their .jwt forms` };
    return { ok: false, description: 'response_mode must be query, form_post, jwt, query.jwt or form_post.jwt' };
  }
  if (value === 'fragment' || value === 'fragment.jwt') return { ok: true, mode: value };
  if (value === 'query' || value === 'query.jwt')
    return { ok: false, description: `response_mode=${value} is not allowed for response_type ${type}: its tokens must not be in a query string` };
  return { ok: false, description: `response_mode must be fragment, form_post, jwt, fragment.jwt or form_post.jwt for response_type ${type}` };
}

/**
 * The mode the refusal of a `response_mode` that cannot be used (`value`) goes
 * in: the JWT form of the type's default when a JWT mode was asked for, else
 * the type's default.
 */
export function refusalResponseMode(value: string | undefined | null, type: ResponseType): ResponseMode {
  return (JWT_RESPONSE_MODES as readonly string[]).includes(value ?? '') ? defaultJwtResponseMode(type) : defaultResponseMode(type);
}
