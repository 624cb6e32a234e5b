// A real Jaeger (v2, all-in-one) for a test file: it receives the spans that
// Keyflow exports over OTLP/HTTP and answers for them through its query API
// (the JSON API its UI reads: /api/services, /api/traces). The binary is built
// by the bootstrap in test mode (tools/jaeger, toolchain.json). Storage is in
// memory: each test file starts with an empty Jaeger of its own, on free ports.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';
import { freePort, isPortOpen } from '../../tools/embedded/ports.js';

const { jaeger: toolchain } = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'tools/scripts/toolchain.json'), 'utf8')) as {
  jaeger: { binary: string; version: string };
};
export const JAEGER_BINARY = path.join(PROJECT_ROOT, toolchain.binary);

/** A tag, a process tag or a log field, as the query API answers it. */
export interface JaegerKeyValue {
  key: string;
  type?: 'string' | 'bool' | 'int64' | 'float64' | 'binary';
  value: unknown;
}

export interface JaegerReference {
  refType: 'CHILD_OF' | 'FOLLOWS_FROM';
  traceID: string;
  spanID: string;
}

export interface JaegerProcess {
  serviceName: string;
  tags: JaegerKeyValue[];
}

export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  /** The parent (CHILD_OF) and links (FOLLOWS_FROM). */
  references: JaegerReference[];
  /** Microseconds since the epoch. */
  startTime: number;
  /** Microseconds. */
  duration: number;
  /** Span attributes, plus span.kind, otel.status_code, error… as Jaeger maps them. */
  tags: JaegerKeyValue[];
  logs: { timestamp: number; fields: JaegerKeyValue[] }[];
  processID: string;
  /** The span's process (the trace's processes[processID]), filled in here. */
  process: JaegerProcess;
  warnings: string[] | null;
}

export interface JaegerTrace {
  traceID: string;
  spans: JaegerSpan[];
  processes: Record<string, JaegerProcess>;
  warnings: string[] | null;
}

export interface RunningJaeger {
  /** The OTLP/HTTP base URL (OTEL_EXPORTER_OTLP_ENDPOINT): spans are posted to `${otlpEndpoint}/v1/traces`. */
  otlpEndpoint: string;
  /** The query API's base URL (also the UI's, for a look by hand). */
  queryUrl: string;
  /** Names of the services that sent spans. */
  services(): Promise<string[]>;
  /** The latest traces with a span of `service` (most recent first, at most `limit`). */
  traces(service: string, limit?: number): Promise<JaegerTrace[]>;
  /** One trace by its id (32 hex digits); rejects when Jaeger has none. */
  trace(traceId: string): Promise<JaegerTrace>;
  /**
   * Polls until a trace matches (spans arrive in batches, and a trace's spans
   * from several processes one by one), and resolves with it; rejects after
   * `timeoutMs` saying what traces there were. Looks in `service`'s traces, or
   * every service's.
   */
  waitForTrace(predicate: (trace: JaegerTrace) => boolean, timeoutMs?: number, service?: string): Promise<JaegerTrace>;
  /** What Jaeger printed so far (for a failing test's message). */
  output(): string;
  stop(): Promise<void>;
}

/** Jaeger v2 is an OpenTelemetry Collector: its configuration is a collector pipeline with Jaeger's extensions. */
function configYaml(ports: { otlp: number; query: number; queryGrpc: number }): string {
  return `# Written by test/support/jaeger.ts: memory storage, loopback only, free ports.
service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    # No metrics server of its own (it would take port 8888).
    metrics:
      level: none
    logs:
      level: warn

extensions:
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:${ports.query}
    grpc:
      endpoint: 127.0.0.1:${ports.queryGrpc}

receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${ports.otlp}

processors:
  # Stored within 100 ms of arrival: tests poll for less long.
  batch:
    timeout: 100ms

exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`;
}

/** A trace as the API answers it: each span's process is in `processes`, by processID. */
type RawTrace = Omit<JaegerTrace, 'spans'> & { spans: (Omit<JaegerSpan, 'process'> & { process?: JaegerProcess })[] };

/** Each span with its process, which the API gives once per trace. */
function withProcesses(trace: RawTrace): JaegerTrace {
  return { ...trace, spans: trace.spans.map((span) => ({ ...span, process: span.process ?? trace.processes[span.processID]! })) };
}

async function getJson<T>(url: string): Promise<{ status: number; data: T | null }> {
  const res = await fetch(url);
  const body = (await res.json().catch(() => null)) as { data?: T } | null;
  return { status: res.status, data: body?.data ?? null };
}

export async function startJaeger(): Promise<RunningJaeger> {
  if (!fs.existsSync(JAEGER_BINARY)) {
    throw new Error(`${JAEGER_BINARY} is missing: node tools/scripts/bootstrap.mjs test builds it (Jaeger ${toolchain.version})`);
  }
  const ports = { otlp: await freePort(), query: await freePort(), queryGrpc: await freePort() };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyflow-jaeger-'));
  const configFile = path.join(dir, 'jaeger.yaml');
  fs.writeFileSync(configFile, configYaml(ports));
  const child: ChildProcess = spawn(JAEGER_BINARY, ['--config', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let printed = '';
  child.stdout?.on('data', (d: Buffer) => (printed += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (printed += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  };

  const queryUrl = `http://127.0.0.1:${ports.query}`;
  const otlpEndpoint = `http://127.0.0.1:${ports.otlp}`;
  // Ready: the query API answers and the OTLP receiver accepts connections.
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`jaeger exited (${child.exitCode}) before it was ready: ${printed}`);
    }
    const queryUp = await fetch(`${queryUrl}/api/services`).then(
      (r) => r.ok,
      () => false,
    );
    if (queryUp && (await isPortOpen(ports.otlp))) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`jaeger was not ready within 30 s (query ${queryUrl}, OTLP ${otlpEndpoint}): ${printed}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }

  const services = async () => (await getJson<string[]>(`${queryUrl}/api/services`)).data ?? [];
  const traces = async (service: string, limit = 100) => {
    const { status, data } = await getJson<RawTrace[]>(`${queryUrl}/api/traces?service=${encodeURIComponent(service)}&limit=${limit}`);
    if (status !== 200) throw new Error(`jaeger: GET /api/traces?service=${service} answered ${status}`);
    return (data ?? []).map(withProcesses);
  };
  const trace = async (traceId: string) => {
    const { status, data } = await getJson<RawTrace[]>(`${queryUrl}/api/traces/${encodeURIComponent(traceId)}`);
    if (status !== 200 || !data?.[0]) throw new Error(`jaeger has no trace ${traceId} (${status})`);
    return withProcesses(data[0]);
  };
  const waitForTrace = async (predicate: (t: JaegerTrace) => boolean, timeoutMs = 10_000, service?: string) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const names = service ? [service] : await services();
      const seen = (await Promise.all(names.map((s) => traces(s)))).flat();
      const found = seen.find(predicate);
      if (found) return found;
      if (Date.now() > until) {
        const summary = seen.map((t) => `${t.traceID}: ${t.spans.map((s) => `${s.process.serviceName}/${s.operationName}`).join(', ')}`);
        throw new Error(`no matching trace within ${timeoutMs} ms; jaeger has ${seen.length}:\n${summary.join('\n')}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  return { otlpEndpoint, queryUrl, services, traces, trace, waitForTrace, output: () => printed, stop };
}

/**
 * A Jaeger (startJaeger) for the tests of the calling file: started in a
 * beforeAll hook, stopped in an afterAll hook. Call it at the top level of the
 * test file, before the hooks that start what sends it spans.
 */
export function useJaeger(): RunningJaeger {
  let jaeger: RunningJaeger | undefined;
  beforeAll(async () => {
    jaeger = await startJaeger();
  });
  afterAll(async () => {
    const stopping = jaeger;
    jaeger = undefined;
    await stopping?.stop();
  });
  const running = () => {
    if (!jaeger) throw new Error('jaeger runs from its beforeAll hook to its afterAll hook: use it in a test or a hook between them');
    return jaeger;
  };
  return {
    get otlpEndpoint() {
      return running().otlpEndpoint;
    },
    get queryUrl() {
      return running().queryUrl;
    },
    services: () => running().services(),
    traces: (service, limit) => running().traces(service, limit),
    trace: (id) => running().trace(id),
    waitForTrace: (predicate, timeoutMs, service) => running().waitForTrace(predicate, timeoutMs, service),
    output: () => running().output(),
    stop: () => running().stop(),
  };
}
