// The operator CLI: `npm run cli -- <command>` or the `keyflow` bin.
import '../runtime/supported-node.js'; // first: refuses an old Node.js before anything else loads
import { type ParseArgsConfig } from 'node:util';
import { parseConfig, type Config } from '../config/env.js';
import { flowJson, listFlows } from '../flows/flow-list.js';
import type { NewClientInput, RedirectUriEntry } from '../domain/clients.js';
import { ConflictError, ValidationError } from '../domain/errors.js';
import { parseScopeParam } from '../domain/scopes.js';
import { isSiteSettingKey, redactSiteSettings, SITE_SETTINGS } from '../domain/site-settings.js';
import { loadKek } from '../security/kek.js';
import { Keyring, keyInfoJson, SIGNING_ALGS } from '../keys/keyring.js';
import { createMlDsa65 } from '../keys/mldsa.js';
import { ensureIndexes, openStore, type Store } from '../store/db.js';
import { createLogger } from '../runtime/log.js';
import { upgradeStoredData } from '../runtime/stored-data-upgrades.js';
import { createClient, listClients } from '../store/clients.js';
import { adminAppJson } from '../admin/app-json.js';
import { idTokenAlgOf, userinfoAlgOf } from '../domain/client-metadata.js';
import { getSiteSettings } from '../store/settings.js';
import type { SigningAlg } from '../store/signing-keys.js';
import { print, UsageError, USAGE, parseOrUsage } from './usage.js';
import { webhooksCommand } from './webhooks.js';
import { teamsCommand } from './teams.js';
import { sourcesCommand } from './sources.js';
import { tokensCommand, usersCommand } from './users.js';
import { connectTemporal } from './temporal.js';
import { invitesCommand } from './invites.js';
import { actorPayload, ADMIN_EVENTS, AUDIT_EVENTS, isAdminEvent } from '../domain/webhook-events.js';
import { recentAuditRecords } from '../store/audit-log.js';
import { cliEvents, OPERATOR } from './events.js';
import { updateSiteSettings } from '../admin/config-changes.js';
import { appChangeCommand, isAppChange } from './apps.js';

type Options = NonNullable<ParseArgsConfig['options']>;

function parse(argv: string[], options: Options, positionals = 0) {
  const parsed = parseOrUsage({ args: argv, options, allowPositionals: positionals > 0, strict: true });
  if (parsed.positionals.length > positionals) throw new UsageError(`unexpected argument: ${parsed.positionals[positionals]}`);
  return parsed;
}

function required<T>(value: T | undefined, flag: string): T {
  if (value === undefined) throw new UsageError(`${flag} is required`);
  return value;
}

async function clients(store: Store, cfg: Config, sub: string | undefined, argv: string[]) {
  if (sub === 'list') {
    parse(argv, {});
    return print((await listClients(store)).map(adminAppJson));
  }
  if (sub === 'create') {
    const { values: v } = parse(argv, {
      name: { type: 'string' },
      description: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      'redirect-uri-wildcard': { type: 'string', multiple: true },
      'redirect-uri-regex': { type: 'string', multiple: true },
      scope: { type: 'string' },
      public: { type: 'boolean' },
      'auth-method': { type: 'string' },
      'post-logout-redirect-uri': { type: 'string', multiple: true },
      'backchannel-logout-uri': { type: 'string' },
      'oidc-field': { type: 'string', multiple: true },
      jwks: { type: 'string' },
      'jwks-uri': { type: 'string' },
      'id-token-alg': { type: 'string' },
      'userinfo-alg': { type: 'string' },
      verified: { type: 'boolean' },
      'require-par': { type: 'boolean' },
      'allowed-resource': { type: 'string', multiple: true },
      'no-pkce': { type: 'boolean' },
    });
    const list = (key: string) => (v[key] as string[] | undefined) ?? [];
    const redirectUris: RedirectUriEntry[] = [
      ...list('redirect-uri').map((value) => ({ type: 'equals' as const, value })),
      ...list('redirect-uri-wildcard').map((value) => ({ type: 'wildcard' as const, value })),
      ...list('redirect-uri-regex').map((value) => ({ type: 'regex' as const, value })),
    ];
    let jwks: unknown = null;
    if (v.jwks !== undefined) {
      try {
        jwks = JSON.parse(v.jwks as string);
      } catch {
        throw new UsageError('--jwks must be a JSON Web Key Set, e.g. {"keys":[...]}');
      }
    }
    const idTokenAlg = idTokenAlgOf(v['id-token-alg'] as string | undefined, cfg.idTokenAlgs);
    if (!idTokenAlg.ok) throw new UsageError(`--id-token-alg: ${idTokenAlg.description}`);
    const userinfoAlg = userinfoAlgOf(v['userinfo-alg'] as string | undefined, cfg.idTokenAlgs);
    if (!userinfoAlg.ok) throw new UsageError(`--userinfo-alg: ${userinfoAlg.description}`);
    const input = {
      name: required(v.name as string | undefined, '--name'),
      description: v.description,
      redirectUris,
      allowedScopes: v.scope !== undefined ? parseScopeParam(v.scope as string) : undefined,
      public: Boolean(v.public),
      tokenEndpointAuthMethod: v['auth-method'],
      postLogoutRedirectUris: list('post-logout-redirect-uri'),
      backchannelLogoutUri: v['backchannel-logout-uri'] ?? null,
      oidcFields: list('oidc-field'),
      jwks,
      jwksUri: v['jwks-uri'] ?? null,
      idTokenSignedResponseAlg: idTokenAlg.alg,
      userinfoSignedResponseAlg: userinfoAlg.alg,
      isVerified: Boolean(v.verified),
      requirePushedAuthorizationRequests: Boolean(v['require-par']),
      allowedResources: list('allowed-resource'),
      requirePkce: !v['no-pkce'],
    } as NewClientInput;
    const { client, clientSecret } = await createClient(store, input);
    // The app as the admin API shows it; the secret as the app API shows it on create, this once.
    return print({ ...adminAppJson(client), ...(clientSecret ? { client_secret: clientSecret } : {}) });
  }
  throw new UsageError(`unknown command: clients ${sub ?? ''}`.trim());
}

async function config(store: Store, cfg: Config, sub: string | undefined, argv: string[]) {
  const keys = Object.keys(SITE_SETTINGS).join(', ');
  if (sub === 'get') {
    const { positionals } = parse(argv, {}, 1);
    const settings = redactSiteSettings(await getSiteSettings(store));
    const key = positionals[0];
    if (key === undefined) return print(settings);
    if (!isSiteSettingKey(key)) throw new UsageError(`unknown setting ${key} (known: ${keys})`);
    return print({ [key]: settings[key] });
  }
  if (sub === 'set') {
    const { positionals } = parse(argv, {}, 2);
    const [key, raw] = positionals;
    if (key === undefined || raw === undefined) throw new UsageError('config set needs KEY and VALUE');
    if (!isSiteSettingKey(key)) throw new UsageError(`unknown setting ${key} (known: ${keys})`);
    // The admin API's change: the same checks, a secret sealed with the KEK, admin.config.update only when the value changes.
    const events = cliEvents(cfg, store);
    try {
      return print(await updateSiteSettings({ store, kek: loadKek(cfg.kek, cfg.dataDir), events }, { [key]: raw }, OPERATOR));
    } finally {
      await events.finish();
    }
  }
  throw new UsageError(`unknown command: config ${sub ?? ''}`.trim());
}

async function keysCommand(store: Store, cfg: Config, sub: string | undefined, argv: string[]) {
  const keyring = () => new Keyring(store, loadKek(cfg.kek, cfg.dataDir), createMlDsa65(cfg.mldsa));
  if (sub === 'list') {
    parse(argv, {});
    return print((await keyring().list()).map(keyInfoJson));
  }
  if (sub === 'rotate') {
    const { values } = parse(argv, { alg: { type: 'string' } });
    const alg = values.alg as string | undefined;
    if (alg !== undefined && !SIGNING_ALGS.includes(alg as SigningAlg)) throw new UsageError(`--alg must be one of ${SIGNING_ALGS.join(', ')}`);
    const ring = keyring();
    const algs = alg ? [alg as SigningAlg] : SIGNING_ALGS;
    const rotated = [];
    for (const a of algs) rotated.push(await ring.rotate(a));
    return print(rotated.map(keyInfoJson));
  }
  if (sub === 'retire') {
    // A kid is base64url and may start with '-': it is taken as it is, never parsed as an option.
    const args = argv[0] === '--' ? argv.slice(1) : argv;
    if (args.length > 1) throw new UsageError(`unexpected argument: ${args[1]}`);
    const kid = required(args[0], 'KID');
    try {
      return print(keyInfoJson(await keyring().retire(kid)));
    } catch (err) {
      throw new ConflictError((err as Error).message);
    }
  }
  throw new UsageError(`unknown command: keys ${sub ?? ''}`.trim());
}

/** The audit log (admin events, team changes, team and site scope grants), newest first, as JSON: what happened, when, by whom. */
async function audit(store: Store, sub: string | undefined, argv: string[]) {
  if (sub !== 'list') throw new UsageError(`unknown command: audit ${sub ?? ''}`.trim());
  const { values } = parse(argv, { limit: { type: 'string' }, event: { type: 'string' } });
  const limit = values.limit === undefined ? 100 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit must be an integer from 1 to 1000');
  const event = values.event as string | undefined;
  if (event !== undefined && !isAdminEvent(event) && !(AUDIT_EVENTS as readonly string[]).includes(event))
    throw new UsageError(`--event must be an admin or audit event: ${[...ADMIN_EVENTS, ...AUDIT_EVENTS].join(', ')}`);
  const records = await recentAuditRecords(store, limit, event);
  // The actor as admin webhooks carry it (`data.actor`): snake_case, only what is known.
  print(records.map((r) => ({ id: r._id, event: r.name, at: r.createdAt, actor: actorPayload(r.actor), data: r.data })));
}

/** Open flows from Temporal's visibility store, filtered by the search attributes every workflow sets. */
async function flows(cfg: Config, sub: string | undefined, argv: string[]) {
  if (sub !== 'list') throw new UsageError(`unknown command: flows ${sub ?? ''}`.trim());
  const { values } = parse(argv, { client: { type: 'string' }, user: { type: 'string' }, all: { type: 'boolean' } });
  const temporal = await connectTemporal(cfg);
  try {
    const filter = { clientId: values.client as string | undefined, userId: values.user as string | undefined, all: Boolean(values.all) };
    print((await listFlows(temporal.client, filter)).map(flowJson));
  } finally {
    await temporal.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const [group, sub, ...rest] = argv;
  if (group === undefined || group === 'help' || group === '--help' || group === '-h') {
    (group === undefined ? process.stderr : process.stdout).write(USAGE + '\n');
    return group === undefined ? 2 : 0;
  }
  if (!['users', 'tokens', 'clients', 'apps', 'config', 'keys', 'flows', 'webhooks', 'audit', 'teams', 'sources', 'invites'].includes(group))
    throw new UsageError(`unknown command: ${group}`);
  const parsed = parseConfig(process.env);
  if (!parsed.ok) {
    for (const line of parsed.errors) process.stderr.write(`keyflow: invalid configuration: ${line}\n`);
    return 1;
  }
  const cfg = parsed.config;
  if (group === 'flows') {
    await flows(cfg, sub, rest);
    return 0;
  }
  const store = openStore(cfg, { serverSelectionTimeoutMS: 5_000 });
  try {
    try {
      await ensureIndexes(store);
      // Before the api or worker ever started on this version, the CLI's own lookups (a user by email) need the upgraded data too.
      await upgradeStoredData(store, createLogger('warn'));
    } catch (err) {
      throw new Error(`cannot reach MongoDB (${(err as Error).message.split('\n')[0]}); is Keyflow running (npm start), or MONGODB_URI set?`, { cause: err });
    }
    if (group === 'users') await usersCommand(store, cfg, sub, rest);
    else if (group === 'tokens') await tokensCommand(store, cfg, sub, rest);
    else if ((group === 'clients' || group === 'apps') && isAppChange(sub)) await appChangeCommand(store, cfg, sub, rest);
    else if (group === 'clients' || group === 'apps') await clients(store, cfg, sub, rest);
    else if (group === 'config') await config(store, cfg, sub, rest);
    else if (group === 'webhooks') await webhooksCommand(store, sub, rest);
    else if (group === 'audit') await audit(store, sub, rest);
    else if (group === 'teams') await teamsCommand(store, cfg, sub, rest);
    else if (group === 'sources') await sourcesCommand(store, cfg, sub, rest);
    else if (group === 'invites') await invitesCommand(store, cfg, sub, rest);
    else await keysCommand(store, cfg, sub, rest);
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

main(process.argv.slice(2)).then(exitAfterFlush, (err: unknown) => {
  if (err instanceof UsageError) {
    process.stderr.write(`keyflow: ${err.message}\n\n${USAGE}\n`);
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
