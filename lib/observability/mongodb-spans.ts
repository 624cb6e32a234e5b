// A client span per MongoDB command, from the driver's command monitoring
// (the store turns it on for its counters): the command and collection names
// only, never the filter, the document or the reply, which hold users' data.
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { MongoClient } from 'mongodb';
import { isTracing, tracer } from './tracing.js';

/** Commands that are the driver's own housekeeping, not the application's work. */
const QUIET = new Set(['hello', 'isMaster', 'ismaster', 'ping', 'saslStart', 'saslContinue', 'endSessions', 'killCursors']);

/** Spans for `client`'s commands from now on, while tracing is on; a no-op otherwise. */
export function traceMongoCommands(client: MongoClient, database: string): void {
  if (!isTracing()) return;
  const open = new Map<number, Span>();
  client.on('commandStarted', (e) => {
    // Only inside a request's or an activity's span: background reads (sweeps, key reloads) would each be a trace of one span.
    if (QUIET.has(e.commandName) || !trace.getSpan(context.active())) return;
    const target: unknown = e.command[e.commandName];
    const collection = typeof target === 'string' ? target : undefined;
    // The driver emits the event on the caller's asynchronous path: the active context is the request's or activity's.
    const span = tracer().startSpan(
      collection ? `${e.commandName} ${collection}` : e.commandName,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'db.system.name': 'mongodb',
          'db.namespace': database,
          'db.operation.name': e.commandName,
          ...(collection ? { 'db.collection.name': collection } : {}),
        },
      },
      context.active(),
    );
    open.set(e.requestId, span);
  });
  const end = (requestId: number, failure?: string) => {
    const span = open.get(requestId);
    if (!span) return;
    open.delete(requestId);
    if (failure) span.setStatus({ code: SpanStatusCode.ERROR, message: failure });
    span.end();
  };
  client.on('commandSucceeded', (e) => end(e.requestId));
  // The failure's class only: a MongoDB error message may quote the document.
  client.on('commandFailed', (e) => end(e.requestId, e.failure.name));
}
