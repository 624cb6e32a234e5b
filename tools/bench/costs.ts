// What a bench loop costs beside its latency: MongoDB commands and Temporal
// calls (by name, api and worker, from their /metrics listeners) and CPU time
// of every process of a Keyflow (api and worker from /metrics, the embedded
// Temporal dev server and FerretDB from /proc). A bench takes a snapshot
// before and after its run and divides the difference by its loop count.
import fs from 'node:fs';
import { parseConfig } from '../../lib/config/env.js';

export interface CostTargets {
  /** The api's /metrics URL (METRICS_ADDR). */
  api: string | null;
  /** The worker's /metrics URL (WORKER_METRICS_ADDR). */
  worker: string | null;
  /** Ports the embedded servers listen on: how their processes are told from other Keyflows' on this machine. */
  temporalPort: number | null;
  mongoPort: number | null;
}

export interface ProcessCounters {
  mongodb: Record<string, number>;
  temporal: Record<string, number>;
  cpuSeconds: number;
  /** Event loop delay p99 since the previous scrape. */
  loopDelayP99Seconds: number | null;
}

export interface CostSnapshot {
  api: ProcessCounters | null;
  worker: ProcessCounters | null;
  temporalCpuSeconds: number | null;
  ferretdbCpuSeconds: number | null;
  /** The process taking the snapshot (the bench client): it shares the machine's cores. */
  clientCpuSeconds: number;
}

const urlOf = (a: { host: string; port: number } | null) => (a ? `http://${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}/metrics` : null);
const portOf = (address: string) => Number(/:(\d{1,5})(\/|$)/.exec(address)?.[1]) || null;

/** The targets a Keyflow started with this environment (npm start's) exposes. */
export function costTargetsFromEnv(env: NodeJS.ProcessEnv = process.env): CostTargets {
  const parsed = parseConfig(env);
  if (!parsed.ok) return { api: null, worker: null, temporalPort: null, mongoPort: null };
  const { metrics, temporal, mongo } = parsed.config;
  return {
    api: urlOf(metrics.api),
    worker: urlOf(metrics.worker),
    temporalPort: temporal.embedded ? temporal.port : portOf(temporal.address),
    mongoPort: mongo.embedded ? mongo.port : portOf(mongo.uri.replace(/^mongodb(\+srv)?:\/\/([^@/]*@)?/, '').split(',')[0]!),
  };
}

/** Reads the Prometheus text of `url`, or null when nothing answers. */
async function scrape(url: string | null): Promise<ProcessCounters | null> {
  if (!url) return null;
  let text: string;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    if (!res.ok) return null;
    text = await res.text();
  } catch {
    return null;
  }
  return parseProcessCounters(text);
}

/** The counters a bench reads from a /metrics text (one-label samples: mongodb_commands_total{command}, temporal_calls_total{method}). */
export function parseProcessCounters(text: string): ProcessCounters {
  const counters: ProcessCounters = { mongodb: {}, temporal: {}, cpuSeconds: 0, loopDelayP99Seconds: null };
  for (const m of text.matchAll(/^([a-z_0-9]+)(?:\{[a-z_]+="((?:[^"\\]|\\.)*)"\})? ([0-9.eE+-]+)$/gm)) {
    const [, name, label, value] = m;
    if (name === 'mongodb_commands_total' && label) counters.mongodb[label] = Number(value);
    else if (name === 'temporal_calls_total' && label) counters.temporal[label] = Number(value);
    else if (name === 'process_cpu_seconds_total') counters.cpuSeconds = Number(value);
    else if (name === 'nodejs_eventloop_delay_p99_seconds') counters.loopDelayP99Seconds = Number(value);
  }
  return counters;
}

/** argv of every process, by pid. */
function processes(): Array<{ pid: number; argv: string[] }> {
  const found: Array<{ pid: number; argv: string[] }> = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      found.push({ pid: Number(pid), argv: fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0') });
    } catch {
      // processes come and go
    }
  }
  return found;
}

/** The process with a socket listening on TCP `port` (any address), from /proc/net/tcp{,6} and each process's fds. */
export function pidListeningOn(port: number): number | null {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = fs.readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address is hex ip:port; state 0A is LISTEN; field 10 the socket inode.
      if (f[3] === '0A' && parseInt(f[1]?.split(':')[1] ?? '', 16) === port) inodes.add(f[9]!);
    }
  }
  if (inodes.size === 0) return null;
  for (const { pid } of processes()) {
    try {
      for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
        const target = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (target && inodes.has(target[1]!)) return pid;
      }
    } catch {
      // gone, or not ours to read
    }
  }
  return null;
}

/** User + system CPU seconds of a process (/proc/<pid>/stat fields 14 and 15, in clock ticks). */
function cpuSecondsOf(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may hold spaces and parentheses: state is field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux Keyflow targets
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

export async function costSnapshot(targets: CostTargets): Promise<CostSnapshot> {
  const all = processes();
  const temporal = all.find(
    (p) => targets.temporalPort !== null && p.argv.includes('start-dev') && p.argv[p.argv.indexOf('--port') + 1] === String(targets.temporalPort),
  );
  const ferret = all.find(
    (p) =>
      targets.mongoPort !== null &&
      /ferretdb$/.test(p.argv[0] ?? '') &&
      p.argv.some((a) => a.startsWith('--listen-addr=') && a.endsWith(`:${targets.mongoPort}`)),
  );
  const [api, worker] = await Promise.all([scrape(targets.api), scrape(targets.worker)]);
  const self = process.cpuUsage();
  return {
    api,
    worker,
    temporalCpuSeconds: cpuSecondsOf(temporal?.pid),
    ferretdbCpuSeconds: cpuSecondsOf(ferret?.pid),
    clientCpuSeconds: (self.user + self.system) / 1e6,
  };
}

export interface CallsPerLoop {
  total: number;
  /** Largest first (at most 5 for MongoDB commands; every method for Temporal). */
  byName: Array<[string, number]>;
}

export interface CostPerLoop {
  loops: number;
  mongodb: { api: CallsPerLoop | null; worker: CallsPerLoop | null };
  temporal: { api: CallsPerLoop | null; worker: CallsPerLoop | null };
  cpuMs: { api: number | null; worker: number | null; temporal: number | null; ferretdb: number | null; client: number | null };
  eventLoopP99Ms: { api: number | null; worker: number | null };
}

const round = (n: number) => Math.round(n * 100) / 100;

function perLoop(before: Record<string, number>, after: Record<string, number>, loops: number, top: number): CallsPerLoop {
  const byName = Object.entries(after)
    .map(([name, n]): [string, number] => [name, (n - (before[name] ?? 0)) / loops])
    .filter(([, n]) => round(n) > 0)
    .sort((a, b) => b[1] - a[1]);
  return { total: round(byName.reduce((sum, [, n]) => sum + n, 0)), byName: byName.slice(0, top).map(([name, n]) => [name, round(n)]) };
}

const cpuMsPerLoop = (before: number | null | undefined, after: number | null | undefined, loops: number) =>
  before === null || before === undefined || after === null || after === undefined ? null : round(((after - before) * 1000) / loops);

/** The cost of one loop between two snapshots (`after` read once the run's `loops` were done). */
export function costDiff(before: CostSnapshot, after: CostSnapshot, loops: number): CostPerLoop {
  const n = Math.max(loops, 1);
  const calls = (which: 'api' | 'worker', kind: 'mongodb' | 'temporal', top: number) => {
    const b = before[which];
    const a = after[which];
    return a && b ? perLoop(b[kind], a[kind], n, top) : null;
  };
  const p99 = (which: 'api' | 'worker') => {
    const v = after[which]?.loopDelayP99Seconds;
    return v === null || v === undefined ? null : round(v * 1000);
  };
  return {
    loops,
    mongodb: { api: calls('api', 'mongodb', 5), worker: calls('worker', 'mongodb', 5) },
    temporal: { api: calls('api', 'temporal', Infinity), worker: calls('worker', 'temporal', Infinity) },
    cpuMs: {
      api: cpuMsPerLoop(before.api?.cpuSeconds, after.api?.cpuSeconds, n),
      worker: cpuMsPerLoop(before.worker?.cpuSeconds, after.worker?.cpuSeconds, n),
      temporal: cpuMsPerLoop(before.temporalCpuSeconds, after.temporalCpuSeconds, n),
      ferretdb: cpuMsPerLoop(before.ferretdbCpuSeconds, after.ferretdbCpuSeconds, n),
      client: cpuMsPerLoop(before.clientCpuSeconds, after.clientCpuSeconds, n),
    },
    eventLoopP99Ms: { api: p99('api'), worker: p99('worker') },
  };
}

const calls = (c: CallsPerLoop | null) => (c ? `${c.total}${c.byName.length ? `  (${c.byName.map(([name, n]) => `${name} ${n}`).join(', ')})` : ''}` : '?');
const ms = (v: number | null) => (v === null ? '?' : String(v));

/** The "cost per loop" block a bench prints. */
export function formatCost(cost: CostPerLoop): string {
  return [
    `  cost per loop (${cost.loops} loops)`,
    `    mongodb commands  api ${calls(cost.mongodb.api)}`,
    `                      worker ${calls(cost.mongodb.worker)}`,
    `    temporal calls    api ${calls(cost.temporal.api)}`,
    `                      worker ${calls(cost.temporal.worker)}`,
    `    cpu ms            api ${ms(cost.cpuMs.api)}  worker ${ms(cost.cpuMs.worker)}  temporal ${ms(cost.cpuMs.temporal)}  ferretdb ${ms(cost.cpuMs.ferretdb)}  bench client ${ms(cost.cpuMs.client)}`,
    `    event loop p99 ms api ${ms(cost.eventLoopP99Ms.api)}  worker ${ms(cost.eventLoopP99Ms.worker)}`,
  ].join('\n');
}
