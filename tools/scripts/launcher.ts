// `npm start`: the whole of Keyflow on one machine. Starts the embedded
// Temporal dev server and FerretDB (unless TEMPORAL_ADDRESS / MONGODB_URI point
// elsewhere), then one worker and the api, each with prefixed output. A worker
// or api that exits is started again (supervisor.ts); the servers are what they
// depend on, so one that dies stops everything. Ctrl-C or SIGTERM stops them
// all, api first, servers last; data stays under DATA_DIR. Each server is
// said before it starts, with how long that usually takes, and once it is up.
// (The installs and the build before it are tools/scripts/bootstrap.mjs and run.mjs.)
import '../../lib/runtime/supported-node.js'; // first: refuses an old Node.js before anything else loads
import path from 'node:path';
import { loadConfigOrExit } from '../../lib/config/env.js';
import { spawnManaged, type ManagedProcess } from '../embedded/process.js';
import { startFerretDb, startTemporalDevServer } from '../embedded/servers.js';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';
import { supervise, type Supervised } from '../embedded/supervisor.js';
import { localWebhooksAllowlist } from './local-webhooks.js';

const config = loadConfigOrExit('keyflow');
const say = (line: string) => process.stdout.write(`[keyflow] ${line}\n`);
/** "up in 3.2 s", since `startedAt`. */
const upIn = (startedAt: number) => `up in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`;

const servers: ManagedProcess[] = [];
const apps: Supervised[] = [];
let stopping = false;

async function stopAll(code: number): Promise<never> {
  stopping = true;
  await Promise.all(apps.map((p) => p.stop()));
  await Promise.all(servers.map((p) => p.stop()));
  process.exit(code);
}

/** A server's exit stops everything: the api and worker cannot do without it. */
function stopAllOnExit(server: ManagedProcess): void {
  void server.exited.then((code) => {
    if (stopping) return;
    say(`${server.name} exited (${code}); stopping everything`);
    void stopAll(1);
  });
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    say(`${signal}: stopping`);
    void stopAll(0);
  });
}

try {
  const env: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_ADDRESS: config.temporal.address, MONGODB_URI: config.mongo.uri };
  const localWebhooks = localWebhooksAllowlist(config.issuer, process.env);
  if (localWebhooks !== null) {
    env.OUTBOUND_ALLOWLIST = localWebhooks;
    say(`development issuer: webhooks may also go to receivers on this machine (OUTBOUND_ALLOWLIST=${localWebhooks}; set OUTBOUND_ALLOWLIST to choose)`);
  }
  if (config.temporal.embedded) {
    say('starting the Temporal dev server (usually a few seconds)…');
    const startedAt = Date.now();
    const temporal = await startTemporalDevServer({
      port: config.temporal.port,
      uiPort: config.temporal.uiPort,
      dbFile: path.join(config.dataDir, 'temporal.sqlite'),
      namespace: config.temporal.namespace,
    });
    servers.push(temporal);
    stopAllOnExit(temporal);
    say(
      `Temporal dev server (pid ${temporal.child.pid}) on 127.0.0.1:${config.temporal.port}, Web UI http://localhost:${config.temporal.uiPort}; ${upIn(startedAt)}`,
    );
  }
  if (config.mongo.embedded) {
    say('starting FerretDB (usually a few seconds)…');
    const startedAt = Date.now();
    const ferret = await startFerretDb({ port: config.mongo.port, dataDir: path.join(config.dataDir, 'ferretdb') });
    servers.push(ferret);
    stopAllOnExit(ferret);
    say(`FerretDB (pid ${ferret.child.pid}, MongoDB wire protocol) on 127.0.0.1:${config.mongo.port}; ${upIn(startedAt)}`);
  }
  for (const name of ['worker', 'api'] as const) {
    const entry = path.join(PROJECT_ROOT, 'dist', name, 'main.js');
    apps.push(
      supervise(name, () => spawnManaged(name, process.execPath, ['--enable-source-maps', '--disable-warning=ExperimentalWarning', entry], { env }), say),
    );
  }
  // The worker bundles its workflows before it polls: "worker running" comes last.
  say(`Keyflow api on ${config.issuer} (readiness: ${config.issuer}/readyz); the worker says "worker running" once it polls (usually 10–30 s)`);
} catch (err) {
  say(`error: ${(err as Error).message}`);
  await stopAll(1);
}
