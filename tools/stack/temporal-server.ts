// Temporal's own server (not the dev server) for the production topology:
// built from the Go module proxy (tools/temporal-server), its schemas set up
// on PostgreSQL with temporal-sql-tool the way Temporal's docs and the compose
// file's schema job do it (default store and SQL visibility), then started
// with a configuration of its own on loopback ports, and Keyflow's namespace
// and search attributes registered with the temporal CLI, as an operator does.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';
import { SearchAttributes } from '../../lib/temporal/search-attributes.js';
import { spawnManaged, type ManagedProcess, type SpawnOptions } from '../embedded/process.js';
// freePort picks below 32768: Temporal keeps a service's membership port in a
// PostgreSQL smallint, and a port above it stops the server at start.
import { freePort, waitForPort } from '../embedded/ports.js';
import { TEMPORAL_DB_PASSWORD, TEMPORAL_DB_USER } from './postgres.js';

const toolchain = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'tools/scripts/toolchain.json'), 'utf8')) as {
  temporal: { binary: string };
  temporalServer: { binary: string };
  temporalSqlTool: { binary: string };
};
const bin = (file: string, hint: string) => {
  const full = path.join(PROJECT_ROOT, file);
  if (!fs.existsSync(full)) throw new Error(`${file} is missing: ${hint}`);
  return full;
};
const SERVER = () => bin(toolchain.temporalServer.binary, 'run `npm run stack` (its bootstrap builds it)');
const SQL_TOOL = () => bin(toolchain.temporalSqlTool.binary, 'run `npm run stack` (its bootstrap builds it)');
const CLI = () => bin(toolchain.temporal.binary, 'run `node tools/scripts/bootstrap.mjs test`');

/** The two databases and the schema each gets from the tool's embedded schemas. */
const DATABASES = [
  { name: 'temporal', schema: 'postgresql/v12/temporal' },
  { name: 'temporal_visibility', schema: 'postgresql/v12/visibility' },
];

/** Creates both databases and brings their schemas to this release's version (idempotent, like the compose schema job). */
export function setupSchemas(pgPort: number): void {
  for (const db of DATABASES) {
    const tool = (...args: string[]) =>
      execFileSync(
        SQL_TOOL(),
        ['--plugin', 'postgres12', '--ep', '127.0.0.1', '-p', String(pgPort), '-u', TEMPORAL_DB_USER, '--pw', TEMPORAL_DB_PASSWORD, '--db', db.name, ...args],
        { stdio: 'pipe' },
      );
    tool('create');
    tool('setup-schema', '-v', '0.0');
    tool('update-schema', '--schema-name', db.schema);
  }
}

export interface RunningTemporal {
  process: ManagedProcess;
  /** host:port of the frontend. */
  address: string;
}

/** The server's configuration: both stores on PostgreSQL, every service on loopback. */
function configYaml(pgPort: number, ports: Record<'frontend' | 'frontendHttp' | 'history' | 'matching' | 'worker', number>, membership: number[]): string {
  const store = (database: string, conns: number) => `
      sql:
        pluginName: postgres12
        databaseName: ${database}
        connectAddr: 127.0.0.1:${pgPort}
        connectProtocol: tcp
        user: ${TEMPORAL_DB_USER}
        password: ${TEMPORAL_DB_PASSWORD}
        maxConns: ${conns}
        maxIdleConns: ${conns}
        maxConnLifetime: 1h`;
  const service = (grpc: number, member: number, extra = '') => `
    rpc:
      grpcPort: ${grpc}
      membershipPort: ${member}
      bindOnLocalHost: true${extra}`;
  return `log:
  stdout: true
  level: warn
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: 4
  datastores:
    default:${store('temporal', 20)}
    visibility:${store('temporal_visibility', 4)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
services:
  frontend:${service(ports.frontend, membership[0]!, `\n      httpPort: ${ports.frontendHttp}`)}
  history:${service(ports.history, membership[1]!)}
  matching:${service(ports.matching, membership[2]!)}
  worker:${service(ports.worker, membership[3]!)}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: 127.0.0.1:${ports.frontend}
dcRedirectionPolicy:
  policy: noop
`;
}

/** Starts the server on free loopback ports with its configuration in `dir`; resolves once the frontend answers. */
export async function startTemporalServer(dir: string, pgPort: number, output: SpawnOptions['output']): Promise<RunningTemporal> {
  fs.mkdirSync(dir, { recursive: true });
  const ports = {
    frontend: await freePort(),
    frontendHttp: await freePort(),
    history: await freePort(),
    matching: await freePort(),
    worker: await freePort(),
  };
  const membership = [await freePort(), await freePort(), await freePort(), await freePort()];
  const configFile = path.join(dir, 'temporal.yaml');
  fs.writeFileSync(configFile, configYaml(pgPort, ports, membership));
  const proc = spawnManaged('temporal', SERVER(), ['--config-file', configFile, '--allow-no-auth', 'start'], { output, cwd: dir });
  await waitForPort(ports.frontend, 60_000, proc.exited);
  const address = `127.0.0.1:${ports.frontend}`;
  // The frontend accepts connections before the cluster has joined: wait until it says it is serving.
  for (let attempt = 0; ; attempt++) {
    try {
      execFileSync(CLI(), ['operator', 'cluster', 'health', '--address', address], { stdio: 'pipe' });
      break;
    } catch (err) {
      if (attempt >= 60) throw err;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
  return { process: proc, address };
}

/** Keyflow's namespace and search attributes, registered as an operator does with the temporal CLI (the compose job, the chart's Job). */
export async function registerNamespace(address: string, namespace: string): Promise<void> {
  const cli = (...args: string[]) => execFileSync(CLI(), [...args, '--address', address], { stdio: 'pipe', encoding: 'utf8' });
  cli('operator', 'namespace', 'create', '--namespace', namespace, '--retention', '72h');
  // A new namespace takes a moment to reach every service.
  for (let attempt = 0; ; attempt++) {
    try {
      cli('operator', 'namespace', 'describe', '--namespace', namespace);
      break;
    } catch (err) {
      if (attempt >= 30) throw err;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
  for (const key of Object.values(SearchAttributes)) {
    cli('operator', 'search-attribute', 'create', '--namespace', namespace, '--name', key.name, '--type', 'Keyword');
  }
}
