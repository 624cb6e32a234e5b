// The processes' logger, in two formats (LOG_FORMAT):
//   text: `2026-11-29T03:04:05.678Z info  message key=value … requestId=…`, for people;
//   json: one object per line (time, level, process, msg, the fields, requestId,
//         traceId, spanId), written by pino, for a log shipper.
// Callers pass ids and outcomes, never tokens, codes or secrets
// (docs/development.md, "Security rules every change keeps"); every line also
// passes through the one redaction rule (redact.ts) in case one slips through.
// Lines go to stderr synchronously: nothing is lost when a process exits.
import { isSpanContextValid, trace, TraceFlags } from '@opentelemetry/api';
import { pino, type DestinationStream } from 'pino';
import type { LogLevel } from '../config/env.js';
import { realTimeMs } from './clock.js';
import { redactFields, redactValue } from './redact.js';
import { currentRequest } from './request-context.js';

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogFormat = 'text' | 'json';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export interface LoggerOptions {
  /** 'text' unless said. */
  format?: LogFormat;
  /** Which process writes (json's `process`): 'api', 'worker', 'cli', 'launcher'… */
  process?: string;
}

/** One line, without its newline. Tests pass one to capture lines. */
export type LogSink = (line: string) => void;

/** The ids that tie a line to its request and trace, when there are any. */
function lineContext(): { requestId?: string; traceId?: string; spanId?: string } {
  const requestId = currentRequest()?.requestId;
  // Without an OpenTelemetry SDK registered there is never an active span: this costs a lookup.
  const span = trace.getActiveSpan();
  const ids = span?.spanContext();
  const traced = span && ids && isSpanContextValid(ids) && (span.isRecording() || (ids.traceFlags & TraceFlags.SAMPLED) !== 0);
  return { ...(requestId ? { requestId } : {}), ...(traced ? { traceId: ids.traceId, spanId: ids.spanId } : {}) };
}

function textValue(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return /[\s"=]/.test(s) ? JSON.stringify(s) : s;
}

function textLogger(level: LogLevel, sink: LogSink): Logger {
  const stacks = level === 'debug';
  const emit = (at: LogLevel) => (msg: string, fields?: Record<string, unknown>) => {
    if (order[at] < order[level]) return;
    const { requestId } = lineContext();
    const all = redactFields({ ...fields, ...(requestId && fields?.requestId === undefined ? { requestId } : {}) }, stacks);
    const pairs = Object.entries(all)
      .map(([k, v]) => ` ${k}=${textValue(v)}`)
      .join('');
    sink(`${new Date(realTimeMs()).toISOString()} ${at.padEnd(5)} ${redactValue(msg) as string}${pairs}`);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

/** Keys pino writes itself: a field of the same name is written as `field_<name>` rather than twice. */
const RESERVED = new Set(['time', 'level', 'process', 'msg']);

function jsonLogger(level: LogLevel, processName: string, sink: LogSink | undefined): Logger {
  const stacks = level === 'debug';
  const destination: DestinationStream = sink ? { write: (s: string) => sink(s.replace(/\n$/, '')) } : pino.destination({ fd: 2, sync: true });
  const p = pino(
    {
      level,
      base: { process: processName },
      messageKey: 'msg',
      timestamp: () => `,"time":"${new Date(realTimeMs()).toISOString()}"`,
      formatters: { level: (label) => ({ level: label }) },
      mixin: lineContext,
    },
    destination,
  );
  const emit = (at: LogLevel) => (msg: string, fields?: Record<string, unknown>) => {
    if (order[at] < order[level]) return;
    const safe = redactFields(fields ?? {}, stacks);
    for (const key of Object.keys(safe)) {
      if (!RESERVED.has(key)) continue;
      safe[`field_${key}`] = safe[key];
      delete safe[key];
    }
    p[at](safe, redactValue(msg) as string);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

/**
 * A logger at `level`: lines below it are dropped. Without a sink, lines go
 * to stderr. Text unless `options.format` says json.
 */
export function createLogger(level: LogLevel = 'info', sink?: LogSink, options: LoggerOptions = {}): Logger {
  if (options.format === 'json') return jsonLogger(level, options.process ?? 'keyflow', sink);
  return textLogger(level, sink ?? ((l) => process.stderr.write(l + '\n')));
}

/** What the access log says of one answered request: the route's template, never the URL or its query. */
export interface AccessLogFields {
  method: string;
  /** The matched route's template (`/api/users/:id`), or a fixed name when none matched. */
  route: string;
  status: number;
  durationMs: number;
  clientId?: string;
  requestId?: string;
}

/** One `request` line at level info (written when ACCESS_LOG is on). */
export function accessLog(log: Logger, fields: AccessLogFields): void {
  log.info('request', {
    method: fields.method,
    // A template has no query; a caller that passed a URL loses it here.
    route: fields.route.split('?')[0],
    status: fields.status,
    durationMs: Math.round(fields.durationMs * 10) / 10,
    ...(fields.clientId ? { clientId: fields.clientId } : {}),
    ...(fields.requestId ? { requestId: fields.requestId } : {}),
  });
}
