// `keyflow apps …` (also `clients …`): the operator's changes to an existing
// app, each through the module the APIs use, with the operator as the events'
// actor. An unknown client id is not found (exit 1).
//
// - verify, deactivate, reactivate, machine-access: a site admin's changes
//   (admin/app-changes.ts): the same grant revocation on deactivation (and of
//   machine tokens when machine access changes) and the same admin.app.update
//   event; the admin API's answer is printed (admin/app-json.ts).
// - update, rotate-secret, delete: what the app API does for the app's owner
//   (lib/accounts/app-lifecycle.ts): the owner's webhooks hear app.updated or
//   app.deleted; deleting revokes the app's grants and refresh families, so its
//   tokens stop working at once. Deleting needs --yes, and Temporal (to end the
//   refresh families): unreachable, nothing is deleted (exit 1).
import type { Config } from '../lib/config/env.js';
import { changeApp, type AppAdminInput } from '../lib/admin/app-changes.js';
import { adminAppJson, appChangeJson } from '../lib/admin/app-json.js';
import { deleteApp, rotateAppSecret, updateApp } from '../lib/accounts/app-lifecycle.js';
import { appToClient } from '../lib/model/client-metadata.js';
import type { ClientDoc } from '../lib/model/clients.js';
import { ConflictError, NotFoundError, ValidationError } from '../lib/model/errors.js';
import { parseScopeParam } from '../lib/model/scopes.js';
import { parseMachineAccessArgs, type MachineAccessEntry } from '../lib/model/machine-access.js';
import type { Store } from '../lib/store/db.js';
import { liveGrantIds } from '../lib/store/grants.js';
import { lazyTemporalClient } from '../lib/temporal/connection.js';
import { clientById, redirectUrisOf } from './client-args.js';
import { optionsOf } from './commands.js';
import { cliAudit, cliEvents, OPERATOR } from './events.js';
import { connectTemporal, reportUnreachedFamilies } from './temporal.js';
import { parseCommand, print, required, UsageError } from './usage.js';

const ADMIN_CHANGES = ['verify', 'deactivate', 'reactivate', 'machine-access'] as const;
export const APP_CHANGES = [...ADMIN_CHANGES, 'update', 'rotate-secret', 'delete'] as const;
type AppChangeCommand = (typeof APP_CHANGES)[number];
type AdminChangeCommand = (typeof ADMIN_CHANGES)[number];

export const isAppChange = (sub: string | undefined): sub is AppChangeCommand => (APP_CHANGES as readonly (string | undefined)[]).includes(sub);
const isAdminChange = (sub: AppChangeCommand): sub is AdminChangeCommand => (ADMIN_CHANGES as readonly string[]).includes(sub);

/** The command line of an admin change: CLIENT_ID, --unverify for `verify`, --allow or --none for `machine-access`. */
function adminChangeLine(sub: AdminChangeCommand, argv: string[]): { clientId: string; input: AppAdminInput } {
  const { positionals, values } = parseCommand(argv, optionsOf(`apps ${sub}`), 1);
  const clientId = positionals[0];
  if (clientId === undefined) throw new UsageError(`apps ${sub} needs CLIENT_ID`);
  if (sub === 'machine-access') return { clientId, input: { machine_access: machineAccessLine(values) } };
  const input = sub === 'verify' ? { is_verified: values.unverify !== true } : { active: sub === 'reactivate' };
  return { clientId, input };
}

/** `machine-access`'s resources and scopes: every `--allow RESOURCE=SCOPE,…` (replacing what the app had), or `--none`. */
function machineAccessLine(values: Record<string, unknown>): MachineAccessEntry[] {
  const allow = (values.allow as string[] | undefined) ?? [];
  if (values.none === true) {
    if (allow.length) throw new UsageError('apps machine-access takes --allow or --none, not both');
    return [];
  }
  if (allow.length === 0) throw new UsageError('apps machine-access needs --allow RESOURCE=SCOPE[,SCOPE…] (repeatable), or --none to remove it');
  const parsed = parseMachineAccessArgs(allow);
  if (!parsed.ok) throw new UsageError(`--allow: ${parsed.description}`);
  return parsed.access;
}

async function adminChange(store: Store, cfg: Config, sub: AdminChangeCommand, argv: string[]): Promise<void> {
  const { clientId, input } = adminChangeLine(sub, argv);
  const client = await clientById(store, clientId);
  // A deactivation ends the app's refresh families: Temporal is reached first.
  const temporal = sub === 'deactivate' ? await connectTemporal(cfg) : lazyTemporalClient(cfg);
  const events = cliEvents(cfg, store);
  try {
    const flows = { client: temporal.client, taskQueue: cfg.temporal.taskQueue };
    print(appChangeJson(await changeApp({ store, flows, events, audit: cliAudit(store) }, client, input, OPERATOR)));
  } finally {
    await events.finish();
    await temporal.close();
  }
}

/** The app API's PATCH body for `update`'s options (only those given), checked and applied as the app API does. */
function updatedInput(client: ClientDoc, cfg: Config, values: Record<string, unknown>) {
  const body: Record<string, unknown> = {};
  if (values.name !== undefined) body.name = values.name;
  if (values.description !== undefined) body.description = values.description;
  const redirectUris = redirectUrisOf(values);
  if (redirectUris) body.redirect_uris = redirectUris;
  if (values.scope !== undefined) body.allowed_scopes = parseScopeParam(values.scope as string);
  if (values['post-logout-redirect-uri'] !== undefined) body.post_logout_redirect_uris = values['post-logout-redirect-uri'];
  // An empty value removes the back-channel logout URI.
  if (values['backchannel-logout-uri'] !== undefined) body.backchannel_logout_uri = values['backchannel-logout-uri'] || null;
  if (values['allowed-resource'] !== undefined) body.allowed_resources = values['allowed-resource'];
  if (values['id-token-alg'] !== undefined) body.id_token_signed_response_alg = values['id-token-alg'];
  // An empty value goes back to the default (RS256; PS256 for FAPI 2.0).
  if (values['access-token-alg'] !== undefined) body.access_token_signed_response_alg = values['access-token-alg'] || null;
  if (Object.keys(body).length === 0)
    throw new UsageError(
      `clients update needs at least one of ${Object.keys(optionsOf('clients update'))
        .map((k) => `--${k}`)
        .join(', ')}`,
    );
  // The owner argument names the owner of a new app; an existing app keeps its own.
  const mapped = appToClient(body, client.ownerUserId ?? '', cfg.idTokenAlgs, client);
  if (!mapped.ok) throw new ValidationError([mapped.description]);
  return mapped.input;
}

async function update(store: Store, cfg: Config, argv: string[]): Promise<void> {
  const { positionals, values } = parseCommand(argv, optionsOf('clients update'), 1);
  const client = await clientById(store, required(positionals[0], 'CLIENT_ID'));
  const input = updatedInput(client, cfg, values);
  const events = cliEvents(cfg, store);
  try {
    const updated = await updateApp({ store, events, audit: cliAudit(store) }, client, input, OPERATOR);
    if (!updated) throw new NotFoundError(`no app with client_id ${client._id}`);
    // A client that starts using a secret gets one, shown this once.
    print({ ...adminAppJson(updated.client), ...(updated.clientSecret ? { client_secret: updated.clientSecret } : {}) });
  } finally {
    await events.finish();
  }
}

async function rotateSecret(store: Store, cfg: Config, argv: string[]): Promise<void> {
  const client = await clientById(store, required(parseCommand(argv, optionsOf('clients rotate-secret'), 1).positionals[0], 'CLIENT_ID'));
  const events = cliEvents(cfg, store);
  try {
    const secret = await rotateAppSecret({ store, events, audit: cliAudit(store) }, client, OPERATOR);
    if (!secret) throw new ConflictError(`app ${client._id} does not use a client secret (token_endpoint_auth_method ${client.tokenEndpointAuthMethod})`);
    // The old secret stops working now; the new one is shown this once.
    print({ client_id: client._id, client_secret: secret });
  } finally {
    await events.finish();
  }
}

async function remove(store: Store, cfg: Config, argv: string[]): Promise<void> {
  const { positionals, values } = parseCommand(argv, optionsOf('clients delete'), 1);
  const client = await clientById(store, required(positionals[0], 'CLIENT_ID'));
  if (values.yes !== true) {
    const grants = (await liveGrantIds(store, { clientId: client._id })).length;
    throw new UsageError(
      `not deleting the app "${client.name}" (${client._id}) without --yes: deleting it revokes its ${grants} grant(s), ` +
        'whose access and refresh tokens stop working at once. Nothing was changed.',
    );
  }
  const temporal = await connectTemporal(cfg);
  const events = cliEvents(cfg, store);
  try {
    const removed = await deleteApp(
      { store, flows: { client: temporal.client, taskQueue: cfg.temporal.taskQueue }, events, audit: cliAudit(store) },
      client,
      OPERATOR,
    );
    print({ deleted: client._id, name: client.name, grants_revoked: removed.grants });
    reportUnreachedFamilies(removed.familiesUnreached);
  } finally {
    await events.finish();
    await temporal.close();
  }
}

export async function appChangeCommand(store: Store, cfg: Config, sub: AppChangeCommand, argv: string[]): Promise<void> {
  if (isAdminChange(sub)) return adminChange(store, cfg, sub, argv);
  if (sub === 'update') return update(store, cfg, argv);
  if (sub === 'rotate-secret') return rotateSecret(store, cfg, argv);
  return remove(store, cfg, argv);
}
