// Connections to Temporal for api, worker and CLI processes. Whoever reaches
// Temporal can read every flow's history and drive it (signals, updates,
// terminations), so every connection presents the operator's TLS client
// certificate and API key when they are configured.
import { realTimeMs } from '../runtime/clock.js';
import fs from 'node:fs';
import net from 'node:net';
import {
  Client,
  Connection,
  defaultGrpcRetryOptions,
  isGrpcServiceError,
  makeGrpcRetryInterceptor,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type TLSConfig,
} from '@temporalio/client';
import { InterceptingCall, status as grpcStatus, type Interceptor } from '@grpc/grpc-js';
import proto from '@temporalio/proto';
import { SearchAttributes } from './search-attributes.js';
import type { Config } from '../config/env.js';
import type { Logger } from '../runtime/log.js';
import { countDependencyTimeout, countTemporalCall } from '../runtime/metrics.js';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client/index.js';
import { isTracing } from '../observability/tracing.js';

export interface TemporalHandle {
  connection: Connection;
  client: Client;
  /** A connection without the SDK's retries, for health checks: one attempt, then an answer. */
  probe: Connection;
  close(): Promise<void>;
}

export interface TemporalConnectionOptions {
  address: string;
  tls?: TLSConfig;
  apiKey?: string;
}

/**
 * The options every Temporal connection is made with (client or worker): the
 * address, TLS with the configured CA, client certificate and server name, and
 * the API key (which implies TLS: a bearer key never crosses the network in
 * clear text). Reads the files now; a file gone since start-up is one clear error.
 */
export function temporalConnectionOptions(temporal: Config['temporal']): TemporalConnectionOptions {
  const { tls, apiKey, address } = temporal;
  if (!tls) return apiKey ? { address, tls: {}, apiKey } : { address };
  const read = (name: string, file: string) => {
    try {
      return fs.readFileSync(file);
    } catch (err) {
      throw new Error(`${name}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`, { cause: err });
    }
  };
  const options: TLSConfig = {};
  if (tls.serverName) options.serverNameOverride = tls.serverName;
  if (tls.caFile) options.serverRootCACertificate = read('TEMPORAL_TLS_CA', tls.caFile);
  if (tls.certFile && tls.keyFile) options.clientCertPair = { crt: read('TEMPORAL_TLS_CERT', tls.certFile), key: read('TEMPORAL_TLS_KEY', tls.keyFile) };
  return { address, tls: options, ...(apiKey ? { apiKey } : {}) };
}

/**
 * Counts every call by its method name (the last part of the gRPC path), and
 * each that ends unreachable, overloaded or past its deadline (the statuses
 * isTemporalUnavailable classifies) as a dependency timeout.
 */
const countCalls: Interceptor = (options, nextCall) => {
  countTemporalCall(options.method_definition.path.slice(options.method_definition.path.lastIndexOf('/') + 1));
  return new InterceptingCall(nextCall(options), {
    start(metadata, _listener, next) {
      next(metadata, {
        onReceiveStatus(status, nextStatus) {
          if (UNAVAILABLE_CODES.has(status.code)) countDependencyTimeout('temporal');
          nextStatus(status);
        },
      });
    },
  });
};

/**
 * gRPC's reconnection backoff grows to 120 s by default: after an outage of a few
 * minutes Temporal would be back long before the api tried it again. Capped, it
 * is seen again within seconds.
 */
const RECONNECT = { 'grpc.initial_reconnect_backoff_ms': 500, 'grpc.max_reconnect_backoff_ms': 5_000 };

/** A client whose connection is made on first use, so a process starts even while Temporal is still coming up. */
export function lazyTemporalClient(config: Pick<Config, 'temporal'>): TemporalHandle {
  const options = { ...temporalConnectionOptions(config.temporal), channelArgs: RECONNECT };
  // The counter sits inside the SDK's retries: each attempt is a round trip and counts.
  const connection = Connection.lazy({ ...options, interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions()), countCalls] });
  const probe = Connection.lazy({ ...options, interceptors: [countCalls] });
  return {
    connection,
    probe,
    // With tracing on, each start, signal, update and query is a span whose context travels in the call's headers to the workflow.
    client: new Client({
      connection,
      namespace: config.temporal.namespace,
      ...(isTracing() ? { interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } } : {}),
    }),
    close: async () => {
      await Promise.allSettled([connection.close(), probe.close()]);
    },
  };
}

/** gRPC statuses that say Temporal is unreachable, overloaded or too slow (not that the call was wrong). */
const UNAVAILABLE_CODES = new Set<number>([grpcStatus.UNAVAILABLE, grpcStatus.DEADLINE_EXCEEDED, grpcStatus.RESOURCE_EXHAUSTED]);

/**
 * Whether an error of a Temporal call says Temporal could not answer in time:
 * the call's own gRPC status, or an update whose answer did not come before
 * its deadline (no worker ran the flow). The SDK's ServiceError carries the
 * gRPC error as its cause (the caller follows causes).
 */
export function isTemporalUnavailable(err: unknown): boolean {
  return err instanceof WorkflowUpdateRPCTimeoutOrCancelledError || (isGrpcServiceError(err) && UNAVAILABLE_CODES.has(err.code));
}

/** Health of the Temporal frontend, for /readyz. */
export async function checkTemporal(handle: TemporalHandle, timeoutMs: number): Promise<void> {
  await handle.probe.withDeadline(realTimeMs() + timeoutMs, () => handle.probe.healthService.check({}));
}

/** Registers Keyflow's search attributes on a Temporal server that lacks them (the embedded one has them already). */
export async function ensureSearchAttributes(handle: TemporalHandle, namespace: string, log: Logger): Promise<void> {
  const existing = await handle.connection.operatorService.listSearchAttributes({ namespace });
  const missing = Object.values(SearchAttributes).filter((k) => !(k.name in (existing.customAttributes ?? {})));
  if (missing.length === 0) return;
  try {
    await handle.connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(
        // Every Keyflow search attribute is a Keyword.
        missing.map((k) => [k.name, proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
      ),
    });
    log.info('registered search attributes', { names: missing.map((k) => k.name).join(',') });
  } catch (err) {
    if ((err as { code?: number }).code === grpcStatus.ALREADY_EXISTS) return;
    log.warn('could not register search attributes; register them by hand (see docs/deployment.md)', { error: err as Error });
  }
}

/** A client connected now, one attempt bounded by `connectTimeoutMs`, for a short-lived process (a CLI command); rejects when Temporal does not answer. */
export async function connectTemporalClient(config: Pick<Config, 'temporal'>, connectTimeoutMs: number): Promise<{ client: Client; close(): Promise<void> }> {
  const deadline = realTimeMs() + connectTimeoutMs;
  await listening(config.temporal.address, connectTimeoutMs);
  const connectTimeout = Math.max(deadline - realTimeMs(), 1);
  const connection = await Connection.connect({ ...temporalConnectionOptions(config.temporal), connectTimeout });
  return { client: new Client({ connection, namespace: config.temporal.namespace }), close: () => connection.close() };
}

/**
 * Rejects at once when the host refuses a TCP connection to `address`
 * (host:port): nothing listens there, and the SDK would retry until its
 * timeout to say so. Anything else (an answer, silence) is the SDK's to judge.
 */
function listening(address: string, timeoutMs: number): Promise<void> {
  // An address without a port, or one that does not parse: the SDK's to refuse in its own words.
  const url = URL.parse(`tcp://${address}`);
  if (!url?.port) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) });
    const done = (err?: Error) => {
      socket.destroy();
      if (err) reject(err);
      else resolve();
    };
    socket.setTimeout(timeoutMs, () => done());
    socket.once('connect', () => done());
    socket.once('error', (err: NodeJS.ErrnoException) =>
      done(err.code === 'ECONNREFUSED' ? new Error(`Temporal refused the connection at ${address}`, { cause: err }) : undefined),
    );
  });
}
