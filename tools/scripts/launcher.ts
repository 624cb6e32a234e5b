// `npm start`: the whole of Keyflow on one machine. Starts the embedded
// Temporal dev server and FerretDB (unless TEMPORAL_ADDRESS / MONGODB_URI point
// elsewhere), then one worker and the api, each with prefixed output. Ctrl-C or
// SIGTERM stops them all, api first, servers last; data stays under DATA_DIR.
import '../../lib/runtime/supported-node.js'; // first: refuses an old Node.js before anything else loads
import path from 'node:path';
import { loadConfigOrExit } from '../../lib/config/env.js';
import { spawnManaged, type ManagedProcess } from '../embedded/process.js';
import { PROJECT_ROOT, startFerretDb, startTemporalDevServer } from '../embedded/servers.js';

const config = loadConfigOrExit('keyflow');
const say = (line: string) => process.stdout.write(`[keyflow] ${line}\n`);

const servers: ManagedProcess[] = [];
const apps: ManagedProcess[] = [];
let stopping = false;

async function stopAll(code: number): Promise<never> {
  stopping = true;
  await Promise.all(apps.map((p) => p.stop()));
  await Promise.all(servers.map((p) => p.stop()));
  process.exit(code);
}

function superviseExit(proc: ManagedProcess): void {
  void proc.exited.then((code) => {
    if (stopping) return;
    say(`${proc.name} exited (${code}); stopping everything`);
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
  if (config.temporal.embedded) {
    const temporal = await startTemporalDevServer({
      port: config.temporal.port,
      uiPort: config.temporal.uiPort,
      dbFile: path.join(config.dataDir, 'temporal.sqlite'),
      namespace: config.temporal.namespace,
    });
    servers.push(temporal);
    superviseExit(temporal);
    say(`Temporal dev server on 127.0.0.1:${config.temporal.port}, Web UI http://localhost:${config.temporal.uiPort}`);
  }
  if (config.mongo.embedded) {
    const ferret = await startFerretDb({ port: config.mongo.port, dataDir: path.join(config.dataDir, 'ferretdb') });
    servers.push(ferret);
    superviseExit(ferret);
    say(`FerretDB (MongoDB wire protocol) on 127.0.0.1:${config.mongo.port}`);
  }
  for (const name of ['worker', 'api'] as const) {
    const entry = path.join(PROJECT_ROOT, 'dist', name, 'main.js');
    const proc = spawnManaged(name, process.execPath, ['--enable-source-maps', '--disable-warning=ExperimentalWarning', entry], { env });
    apps.push(proc);
    superviseExit(proc);
  }
  say(`Keyflow api on ${config.issuer} (readiness: ${config.issuer}/readyz)`);
} catch (err) {
  say(`error: ${(err as Error).message}`);
  await stopAll(1);
}
