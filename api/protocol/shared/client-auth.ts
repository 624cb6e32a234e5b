// Client authentication at the token-family endpoints: client_secret_basic,
// client_secret_post, private_key_jwt (RFC 7523, see client-assertion.ts), and
// `none` for public clients (which must then use PKCE).
import type { Request, Response } from 'express';
import { JWT_BEARER_ASSERTION_TYPE, type ClientAssertionVerifier } from './client-assertion.js';
import { verifySecret } from '../../../lib/security/secrets.js';
import type { ClientDoc } from '../../../lib/model/clients.js';
import type { ClientLookup } from '../../../lib/store/clients.js';
import { sendOAuthError } from './errors.js';
import { describeRequest } from '../../http/observe.js';
import { fieldsOf, raw } from '../../http/input.js';
import type { z } from 'zod';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none';

export type ClientAuthResult =
  { ok: true; client: ClientDoc; method: ClientAuthMethod } | { ok: false; error: 'invalid_client' | 'invalid_request'; description: string; basic: boolean };

/** RFC 6749 §2.3.1: client_id and secret are form-urlencoded inside the Basic credentials. */
function decodeBasic(header: string): { id: string; secret: string } | null {
  const m = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header.trim());
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  try {
    const unform = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
  } catch {
    return null;
  }
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** The body fields that authenticate a client; their types are checked below, each with its own error. */
const ClientCredentials = fieldsOf({ client_id: raw, client_secret: raw, client_assertion: raw, client_assertion_type: raw });

/** Authenticates the calling client; `assertions` verifies private_key_jwt. */
export async function authenticateClient(findClient: ClientLookup, req: Request, assertions: ClientAssertionVerifier): Promise<ClientAuthResult> {
  const result = await authenticate(findClient, req, assertions);
  // The authenticated client names the request's span, metrics and access-log line.
  if (result.ok && req.res) describeRequest(req.res, { clientId: result.client._id });
  return result;
}

async function authenticate(findClient: ClientLookup, req: Request, assertions: ClientAssertionVerifier): Promise<ClientAuthResult> {
  const body = ClientCredentials.parse(req.body);
  const authorization = req.get('authorization');
  const basic = authorization !== undefined && /^Basic /i.test(authorization);
  const fail = (error: 'invalid_client' | 'invalid_request', description: string): ClientAuthResult => ({ ok: false, error, description, basic });

  if (body.client_assertion !== undefined || body.client_assertion_type !== undefined) {
    if (basic || body.client_secret !== undefined) return fail('invalid_request', 'use one client authentication method, not several');
    return assertionAuth(findClient, req, body, assertions, fail);
  }
  let id: string | undefined;
  let secret: string | undefined;
  let method: ClientAuthMethod;
  if (basic) {
    const creds = decodeBasic(authorization);
    if (!creds) return fail('invalid_client', 'malformed Basic credentials');
    if (body.client_secret !== undefined) return fail('invalid_request', 'use one client authentication method, not several');
    if (body.client_id !== undefined && body.client_id !== creds.id) return fail('invalid_request', 'client_id does not match the Basic credentials');
    ({ id, secret } = creds);
    method = 'client_secret_basic';
  } else {
    id = str(body.client_id);
    secret = str(body.client_secret);
    if (!id) return fail('invalid_client', 'client authentication is required');
    method = secret !== undefined ? 'client_secret_post' : 'none';
  }
  if (id.length > 200) return fail('invalid_client', 'unknown client');
  const client = await findClient(id);
  if (!client) return fail('invalid_client', 'unknown client or wrong credentials');
  if (method === 'none') {
    if (!client.public) return fail('invalid_client', 'this client must authenticate');
    return { ok: true, client, method };
  }
  // Both secret methods are accepted for a secret-holding client: they carry the same credential.
  if (client.public || !client.secretHash || !verifySecret(secret!, client.secretHash)) {
    return fail('invalid_client', 'unknown client or wrong credentials');
  }
  return { ok: true, client, method };
}

async function assertionAuth(
  findClient: ClientLookup,
  req: Request,
  body: z.infer<typeof ClientCredentials>,
  verifier: ClientAssertionVerifier,
  fail: (error: 'invalid_client' | 'invalid_request', description: string) => ClientAuthResult,
): Promise<ClientAuthResult> {
  const type = str(body.client_assertion_type);
  const assertion = str(body.client_assertion);
  if (type !== JWT_BEARER_ASSERTION_TYPE) return fail('invalid_client', `client_assertion_type must be ${JWT_BEARER_ASSERTION_TYPE}`);
  if (!assertion) return fail('invalid_client', 'client_assertion is required');
  // The client is named by the assertion's iss (= sub); client_id, if sent, must agree.
  let iss: unknown;
  try {
    iss = (JSON.parse(Buffer.from(assertion.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown> | null)?.iss;
  } catch {
    return fail('invalid_client', 'client_assertion is not a JWT');
  }
  if (typeof iss !== 'string' || iss.length === 0 || iss.length > 200) return fail('invalid_client', 'client_assertion iss is required');
  if (body.client_id !== undefined && body.client_id !== iss) return fail('invalid_client', 'client_id does not match the client_assertion');
  const client = await findClient(iss);
  if (!client) return fail('invalid_client', 'unknown client or invalid client_assertion');
  const result = await verifier.verify(client, assertion, req.originalUrl.split('?')[0]!);
  if (!result.ok) return fail('invalid_client', result.description);
  return { ok: true, client, method: 'private_key_jwt' };
}

/** 401 with a Basic challenge when the client tried Basic (RFC 6749 §5.2), else 400. */
export function sendClientAuthError(res: Response, result: Extract<ClientAuthResult, { ok: false }>): void {
  const unauthorized = result.error === 'invalid_client' && result.basic;
  sendOAuthError(
    res,
    unauthorized ? 401 : 400,
    result.error,
    result.description,
    unauthorized ? { 'WWW-Authenticate': 'Basic realm="keyflow", charset="UTF-8"' } : {},
  );
}
