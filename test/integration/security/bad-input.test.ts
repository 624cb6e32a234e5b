// Each malformed request the security review answered with a 500 now gets a
// 4xx: JSON on the API, Keyflow's error page on browser paths, and never a
// stack trace. (The fuzz test covers the rest at random; these are the cases
// seen, one by one.)
import http from 'node:http';
import zlib from 'node:zlib';
import { useTestApi, STACK_FRAME } from '../../support/harness.js';

let base: URL;
const api = useTestApi();
beforeAll(async () => {
  base = new URL(api.url);
});

interface Answer {
  status: number;
  type: string;
  text: string;
}

/** A raw request: fetch would refuse or rewrite some of these headers. */
function send(method: string, path: string, headers: Record<string, string> = {}, body?: Buffer | string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(body);
    const req = http.request(
      { host: base.hostname, port: base.port, method, path, headers: payload ? { ...headers, 'content-length': String(payload.length) } : headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const FORM = 'application/x-www-form-urlencoded';
const manyParams = Array.from({ length: 1500 }, (_, i) => `p${i}=x`).join('&');

describe('malformed requests that were answered 500', () => {
  it.each<[string, () => Promise<Answer>, number, 'json' | 'html' | 'redirect']>([
    ['a missing asset', () => send('GET', '/assets/no-such-file.js'), 404, 'html'],
    [
      'a form body with an unsupported charset (token endpoint)',
      () => send('POST', '/api/oauth/token', { 'content-type': `${FORM}; charset=latin1` }, 'grant_type=x'),
      415,
      'json',
    ],
    [
      'a form body with an unsupported charset (sign-in page)',
      () => send('POST', '/login', { 'content-type': `${FORM}; charset=utf-16` }, 'email=x'),
      415,
      'html',
    ],
    ['too many parameters', () => send('POST', '/api/oauth/token', { 'content-type': FORM }, manyParams), 413, 'json'],
    [
      'an unsupported Content-Encoding',
      () => send('POST', '/api/oauth/token', { 'content-type': FORM, 'content-encoding': 'x-bogus' }, 'grant_type=x'),
      415,
      'json',
    ],
    [
      'a gzip body that is not gzip',
      () => send('POST', '/api/oauth/par', { 'content-type': FORM, 'content-encoding': 'gzip' }, 'not gzip at all'),
      400,
      'json',
    ],
    ['JSON with charset=latin1', () => send('POST', '/api/oauth/2fa/challenges', { 'content-type': 'application/json; charset=latin1' }, '{}'), 415, 'json'],
    // Without a body and without the session cookie: on to the same request as a GET, which asks to confirm.
    ['POST end_session without a body', () => send('POST', '/api/oauth/end_session'), 303, 'redirect'],
    ['POST 2fa/authorize without a body', () => send('POST', '/api/oauth/2fa/authorize'), 400, 'html'],
    ['POST consent without a body', () => send('POST', '/consent'), 400, 'html'],
    ['POST device page without a body', () => send('POST', '/device'), 400, 'html'],
    [
      'malformed JSON for the app API',
      () => send('POST', '/api/oauth/me/apps', { 'content-type': 'application/json', authorization: 'Bearer x' }, '{"a":'),
      401,
      'json',
    ],
    ['malformed JSON for challenges', () => send('POST', '/api/oauth/2fa/challenges', { 'content-type': 'application/json' }, '{"a":'), 400, 'json'],
  ])('%s', async (_name, request, status, kind) => {
    const answer = await request();
    expect(answer.status).toBe(status);
    if (kind !== 'redirect') expect(answer.type).toContain(kind === 'json' ? 'application/json' : 'text/html');
    if (kind === 'json') expect(JSON.parse(answer.text)).toEqual({ error: expect.any(String), error_description: expect.any(String) });
    expect(answer.text).not.toMatch(STACK_FRAME);
  });

  it('still reads a well-formed gzip body', async () => {
    const answer = await send('POST', '/api/oauth/token', { 'content-type': FORM, 'content-encoding': 'gzip' }, zlib.gzipSync('grant_type=password'));
    expect([answer.status, JSON.parse(answer.text).error]).toEqual([400, 'unsupported_grant_type']);
  });
});
