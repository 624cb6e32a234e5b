// The operator CLI's dispatch: one command line in, an exit code out, its
// output through the command's streams (io.ts). Each command group's module is
// imported when it runs, so that `--help` loads nothing heavy and a command that
// needs MongoDB alone does not load Temporal's SDK.
import type { Config } from '../lib/config/env.js';
import type { Store } from '../lib/store/db.js';
import { cliIo } from './io.js';
import { UsageError, USAGE } from './usage.js';
import { commandHelp, commandOf, groupCommands, isSingleCommand, synopsis } from './commands.js';
import { checkCommandLine, commandOfLine, helpHint, lineCommand } from './command-line.js';
import { problemInFlags } from './field-flags.js';

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
  audit: async () => (await import('./audit.js')).auditCommand,
  teams: async () => (await import('./teams.js')).teamsCommand,
  sources: async () => (await import('./sources.js')).sourcesCommand,
  invites: async () => (await import('./invites.js')).invitesCommand,
  backup: async () => (await import('./backup.js')).backupCommand,
  restore: async () => (await import('./backup.js')).restoreCommand,
};

/**
 * Commands that only read. They skip creating the indexes (a round trip per
 * index, each slow on a remote MongoDB): reads need none to be right, and an
 * index is missing only where the api never started, i.e. on next to no data.
 */
const READS: Record<string, readonly string[]> = {
  users: ['list', 'show'],
  clients: ['list', 'show'],
  apps: ['list', 'show'],
  config: ['get'],
  keys: ['list'],
  webhooks: ['tail'],
  audit: ['list', 'verify', 'export'],
  teams: ['list', 'show'],
  sources: ['list'],
  invites: ['list'],
};

/** MongoDB for one command, reached, with its indexes unless the command only reads. */
async function openCliStore(cfg: Config, readOnly: boolean): Promise<Store> {
  const { ensureIndexes, openStore, pingStore } = await import('../lib/store/db.js');
  const store = openStore(cfg, { serverSelectionTimeoutMS: 5_000 });
  try {
    // Reached before the command runs, so that an unreachable MongoDB is one clear line.
    if (!readOnly) await ensureIndexes(store);
    else await pingStore(store);
    return store;
  } catch (err) {
    await store.close();
    throw new Error(`cannot reach MongoDB (${(err as Error).message.split('\n')[0]}); is Keyflow running (npm start), or MONGODB_URI set?`, { cause: err });
  }
}

async function dispatch(argv: string[]): Promise<number> {
  const group = argv[0];
  const single = group !== undefined && isSingleCommand(group);
  const sub = single ? undefined : argv[1];
  const rest = argv.slice(single ? 1 : 2);
  if (group === undefined || group === 'help' || group === '--help' || group === '-h') {
    (group === undefined ? cliIo().stderr : cliIo().stdout)(USAGE + '\n');
    return group === undefined ? 2 : 0;
  }
  // `keyflow <group> [<sub>] --help`: that command's help, or the group's commands; nothing else runs.
  if (groupCommands(group).length && [sub, ...rest].some((a) => a === '--help' || a === '-h')) {
    const help = helpOf(group, sub === '--help' || sub === '-h' ? undefined : sub);
    if (help === null) throw new UsageError(`unknown command: ${[group, sub].join(' ')}`);
    cliIo().stdout(help);
    return 0;
  }
  // The whole command line is checked before MongoDB or Temporal is asked anything.
  checkCommandLine(commandOfLine(argv), rest);
  const { parseConfig } = await import('../lib/config/env.js');
  const parsed = parseConfig(cliIo().env);
  if (!parsed.ok) {
    for (const line of parsed.errors) cliIo().stderr(`keyflow: invalid configuration: ${line}\n`);
    return 1;
  }
  const cfg = parsed.config;
  (await import('../lib/security/password.js')).setPasswordHashCost(cfg.passwordHashCost);
  // An export is verified without MongoDB (on another machine, say).
  if (group === 'audit' && sub === 'verify' && rest.some((a) => a === '--file' || a.startsWith('--file='))) {
    await (await import('./audit.js')).verifyFileCommand(rest);
    return 0;
  }
  if (group === 'flows') {
    await (await import('./flows.js')).flowsCommand(cfg, sub, rest);
    return 0;
  }
  const readOnly = group === 'backup' || (READS[group]?.includes(sub ?? '') ?? false);
  const [command, store] = await Promise.all([GROUPS[group]!(), openCliStore(cfg, readOnly)]);
  try {
    await command(store, cfg, sub, rest);
    return 0;
  } finally {
    await store.close();
  }
}

/** The help of `group sub`, or the synopses of the group's commands without `sub`; null for an unknown command. */
function helpOf(group: string, sub: string | undefined): string | null {
  if (isSingleCommand(group) || sub !== undefined) {
    const def = commandOf(group, sub);
    return def ? commandHelp(def) : null;
  }
  return groupCommands(group)
    .map((def) => `keyflow ${synopsis(def)}\n    ${def.summary}\n`)
    .join('');
}

/** Runs one command line; its exit code (0 done, 1 not found or failed, 2 a wrong command line). */
export async function runKeyflow(argv: string[]): Promise<number> {
  try {
    return await dispatch(argv);
  } catch (err) {
    return refusal(err, argv);
  }
}

/** Says why a command line was refused, in one line on stderr; its exit code. */
async function refusal(err: unknown, argv: string[]): Promise<number> {
  const { ValidationError } = await import('../lib/model/errors.js');
  // A wrong command line, or values it gave that fail validation: the caller's to fix, with the help to see.
  if (err instanceof UsageError || err instanceof ValidationError) {
    const message = err instanceof ValidationError ? err.problems.map((p) => problemInFlags(lineCommand(argv), p)).join('; ') : err.message;
    cliIo().stderr(`keyflow: ${message} (see ${helpHint(argv)})\n`);
    return 2;
  }
  // Not found, conflicts, unreachable MongoDB, KEK mismatch: one line, no stack.
  cliIo().stderr(`keyflow: error: ${err instanceof Error ? err.message : String(err)}\n`);
  return 1;
}
