// The logger's two formats: text lines with a UTC timestamp, JSON lines with
// time, level, process and msg; both with the request's id inside a request,
// JSON with the active span's trace and span ids (only when sampled), both
// redacted by the one rule; and the access log's line.
import { context, ROOT_CONTEXT, trace, TraceFlags, type Context, type ContextManager } from '@opentelemetry/api';
import { accessLog, createLogger } from '../../../lib/runtime/log.js';
import { runInRequest } from '../../../lib/runtime/request-context.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const JWT = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1In0.c2lnbmF0dXJlX2J5dGVz';

function capture(level: 'debug' | 'info' | 'warn' | 'error', format: 'text' | 'json') {
  const lines: string[] = [];
  return { log: createLogger(level, (l) => lines.push(l), { format, process: 'api' }), lines };
}

describe('text lines', () => {
  it('start with an ISO-8601 UTC time, then the level, message and fields', () => {
    const { log, lines } = capture('info', 'text');
    log.info('worker running', { taskQueue: 'keyflow', reason: 'two words', none: undefined });
    log.debug('dropped');
    expect(lines).toHaveLength(1);
    const [time, rest] = [lines[0]!.slice(0, 24), lines[0]!.slice(25)];
    expect(time).toMatch(ISO);
    expect(rest).toBe('info  worker running taskQueue=keyflow reason="two words"');
  });

  it('keeps the two-argument form (level and sink) and the default level', () => {
    const lines: string[] = [];
    createLogger('warn', (l) => lines.push(l)).warn('careful', { n: 1 });
    expect(lines[0]).toMatch(/^\S+Z warn {2}careful n=1$/);
  });

  it('carry the request id inside a request', () => {
    const { log, lines } = capture('info', 'text');
    runInRequest({ requestId: 'req-1' }, () => log.info('sign-in failed', { method: 'password' }));
    expect(lines[0]).toMatch(/ info {2}sign-in failed method=password requestId=req-1$/);
  });

  it('are redacted', () => {
    const { log, lines } = capture('info', 'text');
    log.info(`got ${JWT}`, { code: 'abc', statusCode: 400, authorization: 'Basic x', error: new Error('boom') });
    expect(lines[0]).toMatch(/ info {2}\[redacted\] code=\[redacted\] statusCode=400 authorization=\[redacted\] error=boom$/);
  });
});

describe('JSON lines', () => {
  it('are one object each with time, level, process, msg and the fields', () => {
    const { log, lines } = capture('info', 'json');
    log.info('api listening', { url: 'http://127.0.0.1:3000', level: 'clash' });
    log.warn('slow', { ms: 12 });
    log.debug('dropped');
    expect(lines).toHaveLength(2);
    const first = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(first).toEqual({
      time: expect.stringMatching(ISO),
      level: 'info',
      process: 'api',
      msg: 'api listening',
      url: 'http://127.0.0.1:3000',
      field_level: 'clash',
    });
    expect(JSON.parse(lines[1]!)).toMatchObject({ level: 'warn', msg: 'slow', ms: 12 });
  });

  it('carry the request id, and redact', () => {
    const { log, lines } = capture('info', 'json');
    runInRequest({ requestId: 'req-2' }, () =>
      log.error('refused', { client_secret: 's3cret', token: JWT, note: `Bearer ${'x'.repeat(20)}`, httpStatus: 401 }),
    );
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 'error',
      requestId: 'req-2',
      client_secret: '[redacted]',
      token: '[redacted]',
      note: '[redacted]',
      httpStatus: 401,
    });
    expect(lines[0]).not.toContain('s3cret');
  });

  it('give an Error its stack only at debug', () => {
    const quiet = capture('info', 'json');
    quiet.log.error('failed', { error: new Error('boom') });
    expect(JSON.parse(quiet.lines[0]!).error).toBe('boom');
    const loud = capture('debug', 'json');
    loud.log.error('failed', { error: new Error('boom') });
    expect(JSON.parse(loud.lines[0]!).error).toEqual({ message: 'boom', stack: expect.stringContaining('Error: boom') });
  });

  describe('inside a span', () => {
    // A context manager of the smallest kind: enough for a synchronous log call.
    let current: Context = ROOT_CONTEXT;
    const manager: ContextManager = {
      active: () => current,
      with(ctx, fn, thisArg, ...args) {
        const before = current;
        current = ctx;
        try {
          return fn.call(thisArg, ...args);
        } finally {
          current = before;
        }
      },
      bind: (_ctx, target) => target,
      enable() {
        return this;
      },
      disable() {
        return this;
      },
    };
    beforeAll(() => context.setGlobalContextManager(manager));
    afterAll(() => context.disable());
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const spanId = '00f067aa0ba902b7';
    const within = (traceFlags: number, fn: () => void) =>
      context.with(trace.setSpan(ROOT_CONTEXT, trace.wrapSpanContext({ traceId, spanId, traceFlags })), fn);

    it('carry its trace and span ids when it is sampled', () => {
      const { log, lines } = capture('info', 'json');
      within(TraceFlags.SAMPLED, () => log.info('traced'));
      within(TraceFlags.NONE, () => log.info('not sampled'));
      log.info('outside');
      expect(JSON.parse(lines[0]!)).toMatchObject({ traceId, spanId });
      for (const line of lines.slice(1)) expect(Object.keys(JSON.parse(line) as object)).not.toContain('traceId');
    });
  });
});

describe('the access log', () => {
  it('writes one request line with method, route, status, duration, client and request id, never a query', () => {
    const { log, lines } = capture('info', 'json');
    accessLog(log, { method: 'POST', route: '/api/oauth/token?code=abc', status: 200, durationMs: 12.345, clientId: 'c1', requestId: 'r1' });
    expect(JSON.parse(lines[0]!)).toEqual({
      time: expect.any(String),
      level: 'info',
      process: 'api',
      msg: 'request',
      method: 'POST',
      route: '/api/oauth/token',
      status: 200,
      durationMs: 12.3,
      clientId: 'c1',
      requestId: 'r1',
    });
    const text = capture('info', 'text');
    runInRequest({ requestId: 'r2' }, () => accessLog(text.log, { method: 'GET', route: '/userinfo', status: 401, durationMs: 1, requestId: 'r2' }));
    expect(text.lines[0]).toMatch(/ info {2}request method=GET route=\/userinfo status=401 durationMs=1 requestId=r2$/);
  });
});
