// `keyflow users ...` and `keyflow tokens revoke`: the operator's changes to
// accounts, through the same changes as the admin API (admin/user-changes.ts),
// with the operator as the events' actor, printed as the admin API answers
// (admin/user-json.ts). Sessions a change ends are deleted
// and their clients told by back-channel logout (admin/user-sessions.ts).
// Commands that revoke grants or end sessions (disable, delete, tokens revoke)
// need Temporal and change nothing when it does not answer (exit 1). An
// unknown user, and a refused change (a taken email, the last admin), exit 1. The changes' modules (and with them Temporal's
// SDK) are loaded only by the commands that change a user.
import { type ParseArgsConfig } from 'node:util';
import type { Config } from '../lib/config/env.js';
import { ValidationError } from '../lib/model/errors.js';
import type * as UserChanges from '../lib/admin/user-changes.js';
import type { UserChangeDeps } from '../lib/admin/user-changes.js';
import { adminUserJsonOf, adminUsersJson, deletedUserJson, revokedTokensJson } from '../lib/admin/user-json.js';
import type { Store } from '../lib/store/db.js';
import { createUser, listUsers } from '../lib/store/users.js';
import { makePersonalAccessToken } from '../lib/accounts/personal-access-token-changes.js';
import { checkedNewToken, patMaxDays } from '../lib/model/personal-access-tokens.js';
import { parseScopeParam } from '../lib/model/scopes.js';
import { cliAudit, cliEvents, OPERATOR } from './events.js';
import { connectTemporal, reportUnreachedFamilies } from './temporal.js';
import { print, UsageError, parseOrUsage } from './usage.js';
import { optionsOf } from './commands.js';
import { readStdin } from './io.js';
import { userByRef } from './user-ref.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Strict options and at most `positionals` positional arguments. */
function commandLine(argv: string[], options: Options, positionals = 0) {
  const parsed = parseOrUsage({ args: argv, options, allowPositionals: positionals > 0, strict: true });
  if (parsed.positionals.length > positionals) throw new UsageError(`unexpected argument: ${parsed.positionals[positionals]}`);
  const text = (key: string) => parsed.values[key] as string | undefined;
  return { positionals: parsed.positionals, text, flag: (key: string) => parsed.values[key] === true };
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new UsageError(`${what} is required`);
  return value;
}

/**
 * `tokens create`: a personal access token of USER, as the user would make it
 * on their tokens page (the same scopes and lifetime cap), printed once — for
 * provisioning, e.g. the initial access token of dynamic client registration.
 */
async function createToken(store: Store, cfg: Config, argv: string[]): Promise<void> {
  const cl = commandLine(argv, optionsOf('tokens create'));
  const user = await userByRef(store, required(cl.text('user'), '--user'));
  const days = required(cl.text('expires-in-days'), '--expires-in-days');
  const checked = checkedNewToken(user.role, patMaxDays(cfg.patMaxLifetimeMs), {
    name: required(cl.text('name'), '--name'),
    scope: parseScopeParam(required(cl.text('scope'), '--scope')),
    expiresInDays: /^\d{1,6}$/.test(days) ? Number(days) : days,
  });
  if (!checked.ok) throw new ValidationError(checked.problems);
  const { token, doc } = await makePersonalAccessToken({ store, audit: cliAudit(store) }, user._id, checked.input, OPERATOR);
  print({ id: doc.id, user_id: user._id, name: doc.name, scope: doc.scope, expires_at: doc.expiresAt?.toISOString() ?? null, token });
}

/**
 * Runs a change with the CLI's dependencies and the changes' module. `needsTemporal`: connected first
 * (exit 1 when unreachable, before anything changes); otherwise a lazy client
 * that connects only if used.
 */
async function withChanges<T>(
  store: Store,
  cfg: Config,
  needsTemporal: boolean,
  run: (deps: UserChangeDeps, changes: typeof UserChanges) => Promise<T>,
): Promise<T> {
  const [changes, { endSessionsWithLogout }, { lazyTemporalClient }] = await Promise.all([
    import('../lib/admin/user-changes.js'),
    import('../lib/admin/user-sessions.js'),
    import('../lib/temporal/connection.js'),
  ]);
  const temporal = needsTemporal ? await connectTemporal(cfg) : lazyTemporalClient(cfg);
  const events = cliEvents(cfg, store);
  const flows = { client: temporal.client, taskQueue: cfg.temporal.taskQueue };
  const idle = { store, flows, issuer: cfg.issuer, idleMs: cfg.sessionIdleMs };
  try {
    return await run({ store, flows, events, audit: cliAudit(store), endSessions: (userId) => endSessionsWithLogout(idle, userId) }, changes);
  } finally {
    await events.finish();
    await temporal.close();
  }
}

export async function usersCommand(store: Store, cfg: Config, sub: string | undefined, argv: string[]): Promise<void> {
  if (sub === 'list') {
    commandLine(argv, optionsOf('users list'));
    return print(await adminUsersJson(store, await listUsers(store), true));
  }
  if (sub === 'show') {
    const cl = commandLine(argv, optionsOf('users show'), 1);
    return print(await adminUserJsonOf(store, await userByRef(store, required(cl.positionals[0], 'the user (id, email or username)'))));
  }
  if (sub === 'create') {
    const cl = commandLine(argv, optionsOf('users create'));
    const given = cl.text('password');
    if ((given === undefined) === !cl.flag('password-stdin')) throw new UsageError('give the password with one of --password and --password-stdin');
    const user = await createUser(store, {
      email: required(cl.text('email'), '--email'),
      password: given ?? (await readStdin()),
      name: cl.text('name'),
      username: cl.text('username'),
      admin: cl.flag('admin'),
    });
    await cliAudit(store).record('user.created', { actor: OPERATOR, subject: { userId: user._id }, data: { admin: user.role === 'admin', via: 'cli' } });
    return print(await adminUserJsonOf(store, user));
  }
  if (sub === 'update') {
    const cl = commandLine(argv, optionsOf('users update'), 1);
    const fields = ['name', 'email', 'username', 'role'];
    const body: Record<string, unknown> = Object.fromEntries(fields.flatMap((k) => (cl.text(k) === undefined ? [] : [[k, cl.text(k)]])));
    const phoneVerified = cl.text('phone-number-verified');
    if (phoneVerified !== undefined) {
      if (phoneVerified !== 'true' && phoneVerified !== 'false') throw new UsageError('--phone-number-verified must be true or false');
      body.phone_number_verified = phoneVerified === 'true';
    }
    if (Object.keys(body).length === 0) throw new UsageError('users update needs at least one of --name, --email, --username, --role, --phone-number-verified');
    const target = await userByRef(store, required(cl.positionals[0], 'the user (id or email)'));
    return print(await adminUserJsonOf(store, await withChanges(store, cfg, false, (deps, c) => c.updateUser(deps, target, body, OPERATOR))));
  }
  if (sub === 'disable' || sub === 'enable') {
    const target = await userByRef(store, required(commandLine(argv, optionsOf(`users ${sub}`), 1).positionals[0], 'the user (id or email)'));
    const disabled = sub === 'disable';
    return print(await adminUserJsonOf(store, await withChanges(store, cfg, disabled, (deps, c) => c.updateUser(deps, target, { disabled }, OPERATOR))));
  }
  if (sub === 'reset-2fa') {
    const target = await userByRef(store, required(commandLine(argv, optionsOf('users reset-2fa'), 1).positionals[0], 'the user (id or email)'));
    return print(await adminUserJsonOf(store, await withChanges(store, cfg, false, (deps, c) => c.resetSecondFactors(deps, target, OPERATOR))));
  }
  if (sub === 'delete') {
    const user = await userByRef(store, required(commandLine(argv, optionsOf('users delete'), 1).positionals[0], 'the user (id or email)'));
    const removed = await withChanges(store, cfg, true, (deps, c) => c.deleteUser(deps, user, OPERATOR));
    print(deletedUserJson(user, removed));
    return reportUnreachedFamilies(removed.familiesUnreached);
  }
  throw new UsageError(`unknown command: users ${sub ?? ''}`.trim());
}

/** `tokens revoke --user USER`: every OAuth grant (access and refresh tokens) and personal access token of the user. */
export async function tokensCommand(store: Store, cfg: Config, sub: string | undefined, argv: string[]): Promise<void> {
  if (sub === 'create') return createToken(store, cfg, argv);
  if (sub !== 'revoke') throw new UsageError(`unknown command: tokens ${sub ?? ''}`.trim());
  const target = await userByRef(store, required(commandLine(argv, optionsOf('tokens revoke')).text('user'), '--user'));
  const revoked = await withChanges(store, cfg, true, (deps, c) => c.revokeUserTokens(deps, target, OPERATOR));
  print({ user_id: target._id, ...revokedTokensJson(revoked) });
  reportUnreachedFamilies(revoked.familiesUnreached);
}
