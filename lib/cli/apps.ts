// `keyflow apps verify|deactivate|reactivate CLIENT_ID`: a site admin's
// changes to any app, through the same change module as the admin API
// (admin/app-changes.ts): the same grant revocation on deactivation and the
// same admin.app.update event, with the operator as actor, and the admin
// API's answer printed (admin/app-json.ts). An unknown client id is a usage
// error (exit 2). `apps list|create` are `clients list|create`.
import type { Config } from '../config/env.js';
import { ValidationError } from '../domain/errors.js';
import { changeApp, type AppAdminInput } from '../admin/app-changes.js';
import { appChangeJson } from '../admin/app-json.js';
import type { Store } from '../store/db.js';
import { findClient } from '../store/clients.js';
import { connectTemporalClient, lazyTemporalClient } from '../temporal/connection.js';
import { cliEvents, OPERATOR } from './events.js';
import { print, UsageError, parseOrUsage } from './usage.js';

export const APP_CHANGES = ['verify', 'deactivate', 'reactivate'] as const;
type AppChangeCommand = (typeof APP_CHANGES)[number];

export const isAppChange = (sub: string | undefined): sub is AppChangeCommand => (APP_CHANGES as readonly (string | undefined)[]).includes(sub);

/** The command line of a change: CLIENT_ID, and --unverify for `verify`. */
function commandLine(sub: AppChangeCommand, argv: string[]): { clientId: string; input: AppAdminInput } {
  const parsed = parseOrUsage({ args: argv, options: sub === 'verify' ? { unverify: { type: 'boolean' } } : {}, allowPositionals: true, strict: true });
  const [clientId, extra] = parsed.positionals;
  if (clientId === undefined) throw new UsageError(`apps ${sub} needs CLIENT_ID`);
  if (extra !== undefined) throw new UsageError(`unexpected argument: ${extra}`);
  const input = sub === 'verify' ? { is_verified: parsed.values.unverify !== true } : { active: sub === 'reactivate' };
  return { clientId, input };
}

/** Temporal for a deactivation (its refresh families are ended), reached now or an error saying what to check. */
async function temporalFor(cfg: Config, sub: AppChangeCommand) {
  if (sub !== 'deactivate') return lazyTemporalClient(cfg);
  try {
    return await connectTemporalClient(cfg, 5_000);
  } catch (err) {
    throw new Error(`cannot reach Temporal at ${cfg.temporal.address}; is Keyflow running (npm start), or TEMPORAL_ADDRESS set?`, { cause: err });
  }
}

export async function appChangeCommand(store: Store, cfg: Config, sub: AppChangeCommand, argv: string[]): Promise<void> {
  const { clientId, input } = commandLine(sub, argv);
  const client = clientId.length <= 200 ? await findClient(store, clientId) : null;
  if (!client) throw new ValidationError([`no app with client_id ${clientId}`]);
  const temporal = await temporalFor(cfg, sub);
  const events = cliEvents(cfg, store);
  try {
    const flows = { client: temporal.client, taskQueue: cfg.temporal.taskQueue };
    print(appChangeJson(await changeApp({ store, flows, events }, client, input, OPERATOR)));
  } finally {
    await events.finish();
    await temporal.close();
  }
}
