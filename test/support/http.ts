// HTTP as the tests' clients speak it to an api: forms and JSON sent, answers
// parsed, and the few values tests read off pages and tokens. Each file binds
// these to its api and paths in a line (`const post = (…) => postForm(api, …)`).
import { type Json, type ApiUnderTest } from './harness.js';

/** An api, or its base URL. */
export type Base = ApiUnderTest | string;

const urlOf = (base: Base, path: string) => `${typeof base === 'string' ? base : base.url}${path}`;

/** An answer with its body parsed as JSON (null for an empty body). */
export interface Answer {
  res: Response;
  status: number;
  text: string;
  body: Json;
}

async function parsed(res: Response): Promise<Answer> {
  const text = await res.text();
  return { res, status: res.status, text, body: text ? JSON.parse(text) : null };
}

/** POSTs a form to `path` of the api. */
export async function postForm(
  base: Base,
  path: string,
  body: Record<string, string> | [string, string][] | URLSearchParams,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return parsed(
    await fetch(urlOf(base, path), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(body),
    }),
  );
}

export interface RequestOptions {
  /** Sent as `Authorization: Bearer …` when given. */
  token?: string | null;
  /** Sent as JSON; a string is sent as it is (malformed JSON, another content type). */
  body?: unknown;
  /** The body's content type (default application/json). */
  contentType?: string;
  headers?: Record<string, string>;
}

/** A request to `url` with a JSON (or raw) body and a bearer token, as the api's JSON endpoints take them. */
export async function requestJson(
  url: string,
  method: string,
  { token, body, contentType = 'application/json', headers = {} }: RequestOptions = {},
): Promise<Answer> {
  const payload = typeof body === 'string' ? body : body !== undefined ? JSON.stringify(body) : undefined;
  return parsed(
    await fetch(url, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(payload !== undefined ? { 'content-type': contentType } : {}), ...headers },
      body: payload,
    }),
  );
}

/** GET /api/oauth/userinfo with `accessToken` as a Bearer token (`init` for another method or more headers). */
export const getUserinfo = (base: Base, accessToken: string, init: RequestInit = {}) =>
  fetch(urlOf(base, '/api/oauth/userinfo'), { ...init, headers: { authorization: `Bearer ${accessToken}`, ...(init.headers as Record<string, string>) } });

/** HTTP Basic client authentication with id and secret form-encoded first (RFC 6749 §2.3.1). */
export const basicAuthEncoded = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** The CSRF token of the (first) form of a page. */
export const csrfOf = (page: string) => /name="csrf" value="([^"]+)"/.exec(page)![1]!;

/** The claims of a JWT, unverified (the tests verify signatures where that is the point). */
export const jwtClaims = (jwt: string): Json => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString());

/** The current time in seconds since the epoch, as JWT claims count it. */
export const epochSeconds = () => Math.floor(Date.now() / 1000);

/** An error answer of the API: `status` with this OAuth-style `error`, and an `error_description` matching `mentions` when given. */
export function expectApiError(answer: Pick<Answer, 'status' | 'body'>, status: number, error: string, mentions?: RegExp): void {
  expect({ status: answer.status, error: answer.body?.error }).toEqual({ status, error });
  if (mentions) expect(answer.body.error_description).toMatch(mentions);
}
