// The operator CLI: `npm run cli -- <command>` or the `keyflow` bin. This entry
// only dispatches: each command group's module is imported when it runs, so
// that `--help` loads nothing heavy and a command that needs MongoDB alone
// does not load Temporal's SDK (a third of a second, more on a busy machine).
import '../runtime/supported-node.js'; // first: refuses an old Node.js before anything else loads
// The default export, not a named one: on a Node.js too old to have it, a missing named export fails at link time,
// before supported-node.js can refuse that Node.js in one line.
import nodeModule from 'node:module';
import type { Config } from '../config/env.js';
import type { Store } from '../store/db.js';
import { UsageError, USAGE } from './usage.js';

// Every command runs in a new process that compiles the same modules (the
// MongoDB driver, Temporal's client…) again: Node's on-disk compile cache (in
// the system's temporary folder, checked against each source) saves about a
// tenth of a command's time from its second run on.
nodeModule.enableCompileCache?.();

type Command = (store: Store, cfg: Config, sub: string | undefined, argv: string[]) => Promise<void>;

/** Each command group and the module that runs it; `flows` needs Temporal and no MongoDB. */
const GROUPS: Record<string, () => Promise<Command>> = {
  users: async () => (await import('./users.js')).usersCommand,
  tokens: async () => (await import('./users.js')).tokensCommand,
  clients: async () => (await import('./clients.js')).clientsCommand,
  apps: async () => (await import('./clients.js')).clientsCommand,
  config: async () => (await import('./config.js')).configCommand,
  keys: async () => (await import('./keys.js')).keysCommand,
  webhooks: async () => {
    const { webhooksCommand } = await import('./webhooks.js');
    return (store, _cfg, sub, argv) => webhooksCommand(store, sub, argv);
  },
  audit: async () => {
    const { auditCommand } = await import('./audit.js');
    return (store, _cfg, sub, argv) => auditCommand(store, sub, argv);
  },
  teams: async () => (await import('./teams.js')).teamsCommand,
  sources: async () => (await import('./sources.js')).sourcesCommand,
  invites: async () => (await import('./invites.js')).invitesCommand,
};

/**
 * Commands that only read. They skip creating the indexes (a round trip per
 * index, each slow on a remote MongoDB): reads need none to be right, and an
 * index is missing only where the api never started, i.e. on next to no data.
 */
const READS: Record<string, readonly string[]> = {
  users: ['list'],
  clients: ['list', 'show'],
  apps: ['list', 'show'],
  config: ['get'],
  keys: ['list'],
  webhooks: ['tail'],
  audit: ['list'],
  teams: ['list', 'show'],
  sources: ['list'],
  invites: ['list'],
};

/** MongoDB for one command, with the stored data this version expects, and its indexes unless the command only reads. */
async function openCliStore(cfg: Config, readOnly: boolean): Promise<Store> {
  const [{ ensureIndexes, openStore }, { upgradeStoredData }, { createLogger }] = await Promise.all([
    import('../store/db.js'),
    import('../runtime/stored-data-upgrades.js'),
    import('../runtime/log.js'),
  ]);
  const store = openStore(cfg, { serverSelectionTimeoutMS: 5_000 });
  try {
    if (!readOnly) await ensureIndexes(store);
    // Before the api or worker ever started on this version, the CLI's own lookups (a user by email) need the upgraded data too.
    await upgradeStoredData(store, createLogger('warn'));
    return store;
  } catch (err) {
    await store.close();
    throw new Error(`cannot reach MongoDB (${(err as Error).message.split('\n')[0]}); is Keyflow running (npm start), or MONGODB_URI set?`, { cause: err });
  }
}

async function main(argv: string[]): Promise<number> {
  const [group, sub, ...rest] = argv;
  if (group === undefined || group === 'help' || group === '--help' || group === '-h') {
    (group === undefined ? process.stderr : process.stdout).write(USAGE + '\n');
    return group === undefined ? 2 : 0;
  }
  if (group !== 'flows' && !Object.hasOwn(GROUPS, group)) throw new UsageError(`unknown command: ${group}`);
  const { parseConfig } = await import('../config/env.js');
  const parsed = parseConfig(process.env);
  if (!parsed.ok) {
    for (const line of parsed.errors) process.stderr.write(`keyflow: invalid configuration: ${line}\n`);
    return 1;
  }
  const cfg = parsed.config;
  if (group === 'flows') {
    await (await import('./flows.js')).flowsCommand(cfg, sub, rest);
    return 0;
  }
  const [command, store] = await Promise.all([GROUPS[group]!(), openCliStore(cfg, READS[group]?.includes(sub ?? '') ?? false)]);
  try {
    await command(store, cfg, sub, rest);
    return 0;
  } finally {
    await store.close();
  }
}

/**
 * Ends the process once stdout and stderr are flushed: process.exit() right after a
 * large write to a pipe cuts the output at the pipe's 64 KiB buffer (`keyflow clients
 * list | jq` on a busy instance), so exit from the callback of a last, empty write.
 */
function exitAfterFlush(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

main(process.argv.slice(2)).then(exitAfterFlush, async (err: unknown) => {
  const { ValidationError } = await import('../domain/errors.js');
  if (err instanceof UsageError) {
    process.stderr.write(err.showUsage ? `keyflow: ${err.message}\n\n${USAGE}\n` : `keyflow: ${err.message}\n`);
    return exitAfterFlush(2);
  }
  // Values the command line gave that fail validation are the caller's to fix, like usage errors.
  if (err instanceof ValidationError) {
    for (const problem of err.problems) process.stderr.write(`keyflow: invalid input: ${problem}\n`);
    return exitAfterFlush(2);
  }
  // Operational errors (conflicts, unreachable MongoDB, KEK mismatch): one line, no stack.
  process.stderr.write(`keyflow: error: ${err instanceof Error ? err.message : String(err)}\n`);
  exitAfterFlush(1);
});
