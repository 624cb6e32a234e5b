// What a request costs this process, as Prometheus text: MongoDB commands and
// Temporal calls by name, CPU seconds and event loop delay. Counters are
// process-wide so the store and the Temporal connection count without being
// handed a registry; they are served on a listener of their own, never on the
// public api port. Labels are command and method names only: no ids, no users.
import http from 'node:http';
import { monitorEventLoopDelay, type ELDHistogram } from 'node:perf_hooks';
import type { MetricsAddress } from '../config/env.js';
import type { Logger } from './log.js';

const mongodbCommands = new Map<string, number>();
const temporalCalls = new Map<string, number>();
const LOOP_DELAY_RESOLUTION_MS = 10;

/** One MongoDB command sent (an attempt: a retried command counts twice). */
export function countMongoCommand(command: string): void {
  mongodbCommands.set(command, (mongodbCommands.get(command) ?? 0) + 1);
}

/** `n` Temporal calls of `method` (gRPC method name, e.g. StartWorkflowExecution). */
export function countTemporalCall(method: string, n = 1): void {
  temporalCalls.set(method, (temporalCalls.get(method) ?? 0) + n);
}

export interface MetricsListener {
  url: string;
  close(): Promise<void>;
}

const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

function counterLines(name: string, help: string, label: string, values: Map<string, number>): string[] {
  const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} counter`];
  for (const [key, value] of [...values].sort(([a], [b]) => a.localeCompare(b))) lines.push(`${name}{${label}="${escapeLabel(key)}"} ${value}`);
  return lines;
}

/**
 * The exposition text. `loopDelay` is read and reset: its p99 covers the time
 * since the previous scrape, so a bench that reads before and after sees its
 * own run.
 */
export function renderMetrics(loopDelay?: ELDHistogram): string {
  const cpu = process.cpuUsage();
  const lines = [
    ...counterLines('mongodb_commands_total', 'MongoDB commands sent, by command name.', 'command', mongodbCommands),
    ...counterLines('temporal_calls_total', 'Temporal gRPC calls made, by method.', 'method', temporalCalls),
    '# HELP process_cpu_seconds_total User and system CPU time of this process.',
    '# TYPE process_cpu_seconds_total counter',
    `process_cpu_seconds_total ${(cpu.user + cpu.system) / 1e6}`,
  ];
  if (loopDelay) {
    // Node records the whole interval between two samples (resolution + delay): the delay is what exceeds it.
    // An empty histogram (no sample yet) reports its maximum int64; say 0 instead.
    const p99 = loopDelay.count > 0 ? Math.max(0, loopDelay.percentile(99) / 1e9 - LOOP_DELAY_RESOLUTION_MS / 1000) : 0;
    loopDelay.reset();
    lines.push(
      '# HELP nodejs_eventloop_delay_p99_seconds 99th percentile of event loop delay since the previous scrape.',
      '# TYPE nodejs_eventloop_delay_p99_seconds gauge',
      `nodejs_eventloop_delay_p99_seconds ${p99}`,
    );
  }
  return lines.join('\n') + '\n';
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/**
 * Serves GET /metrics on `address`. `beforeScrape` lets a process fold in
 * counts gathered elsewhere (the worker's native Temporal connection) first.
 */
export async function startMetricsListener(address: MetricsAddress, log: Logger, beforeScrape?: () => void): Promise<MetricsListener> {
  const loopDelay = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
  loopDelay.enable();
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    beforeScrape?.();
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'cache-control': 'no-store' }).end(renderMetrics(loopDelay));
  });
  await new Promise<void>((resolve, reject) => server.listen(address.port, address.host, resolve).once('error', reject));
  // The metrics tell traffic volumes; outside loopback whoever reaches the port reads them.
  if (!LOOPBACK.test(address.host)) log.warn('metrics listener is not on loopback: keep its port behind a firewall', { host: address.host });
  const bound = server.address();
  const port = typeof bound === 'object' && bound ? bound.port : address.port;
  return {
    url: `http://${address.host.includes(':') ? `[${address.host}]` : address.host}:${port}/metrics`,
    close: async () => {
      loopDelay.disable();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
