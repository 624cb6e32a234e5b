// `keyflow clients …`, also spelled `keyflow apps …`: the OAuth clients. `list`
// and `show` print each as the admin API shows it (admin/app-json.ts);
// `create` prints the new one with its secret, this once. Changes to an
// existing client (update, rotate-secret, delete, verify, deactivate,
// reactivate) are in apps.ts, loaded only for them: they load Temporal's SDK.
import type { Config } from '../lib/config/env.js';
import { adminAppJson } from '../lib/admin/app-json.js';
import { accessTokenAlgOf, fapiProfileOf, idTokenAlgOf, introspectionAlgOf, userinfoAlgOf } from '../lib/model/client-metadata.js';
import { signingNotes } from '../lib/model/algorithm-notes.js';
import { parseMachineAccessArgs } from '../lib/model/machine-access.js';
import { DEVICE_CODE_GRANT_TYPE, TOKEN_EXCHANGE_GRANT_TYPE } from '../lib/model/grant-types.js';
import { FAPI2_DEFAULT_SIGNING_ALG } from '../lib/model/fapi2.js';
import { requestObjectAlgOf } from '../lib/model/request-object.js';
import type { NewClientInput } from '../lib/model/clients.js';
import { parseScopeParam } from '../lib/model/scopes.js';
import { listClients } from '../lib/store/clients.js';
import { createApp } from '../lib/accounts/app-lifecycle.js';
import { cliAudit, cliEvents, OPERATOR } from './events.js';
import type { Store } from '../lib/store/db.js';
import { clientById, redirectUrisOf } from './client-args.js';
import { optionsOf } from './commands.js';
import { parseCommand, print, required, UsageError } from './usage.js';
import { cliIo } from './io.js';

/** The grant types whose registered names are URNs, by their short names. */
const GRANT_TYPE_NAMES: Record<string, string> = { device_code: DEVICE_CODE_GRANT_TYPE, token_exchange: TOKEN_EXCHANGE_GRANT_TYPE };

async function create(store: Store, cfg: Config, argv: string[]): Promise<void> {
  const { values: v } = parseCommand(argv, optionsOf('clients create'));
  const list = (key: string) => (v[key] as string[] | undefined) ?? [];
  let jwks: unknown = null;
  if (v.jwks !== undefined) {
    try {
      jwks = JSON.parse(v.jwks as string);
    } catch {
      throw new UsageError('--jwks must be a JSON Web Key Set, e.g. {"keys":[...]}');
    }
  }
  // Without --fapi-profile, the site's default (FAPI_PROFILE_DEFAULT); `none` for none.
  const asked = v['fapi-profile'] as string | undefined;
  const fapiProfile = asked === undefined ? ({ ok: true, profile: cfg.fapiProfileDefault } as const) : fapiProfileOf(asked === 'none' ? null : asked);
  if (!fapiProfile.ok) throw new UsageError(`--fapi-profile: ${fapiProfile.description}`);
  // A FAPI 2.0 client signs with the profile's algorithm unless it names another.
  const idTokenAlg = idTokenAlgOf((v['id-token-alg'] as string | undefined) ?? (fapiProfile.profile ? FAPI2_DEFAULT_SIGNING_ALG : undefined), cfg.idTokenAlgs);
  if (!idTokenAlg.ok) throw new UsageError(`--id-token-alg: ${idTokenAlg.description}`);
  const userinfoAlg = userinfoAlgOf(v['userinfo-alg'] as string | undefined, cfg.idTokenAlgs);
  if (!userinfoAlg.ok) throw new UsageError(`--userinfo-alg: ${userinfoAlg.description}`);
  const introspectionAlg = introspectionAlgOf(v['introspection-alg'] as string | undefined, cfg.idTokenAlgs);
  if (!introspectionAlg.ok) throw new UsageError(`--introspection-alg: ${introspectionAlg.description}`);
  const requestObjectAlg = requestObjectAlgOf(v['request-object-alg'] as string | undefined);
  if (!requestObjectAlg.ok) throw new UsageError(`--request-object-alg: ${requestObjectAlg.description}`);
  const accessTokenAlg = accessTokenAlgOf(v['access-token-alg'] as string | undefined, cfg.idTokenAlgs);
  if (!accessTokenAlg.ok) throw new UsageError(`--access-token-alg: ${accessTokenAlg.description}`);
  const machineAccess = parseMachineAccessArgs(list('machine-access'));
  if (!machineAccess.ok) throw new UsageError(`--machine-access: ${machineAccess.description}`);
  const input = {
    name: required(v.name as string | undefined, '--name'),
    description: v.description,
    redirectUris: redirectUrisOf(v) ?? [],
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
    introspectionSignedResponseAlg: introspectionAlg.alg,
    requestObjectSigningAlg: requestObjectAlg.alg,
    accessTokenSignedResponseAlg: accessTokenAlg.alg,
    machineAccess: machineAccess.access,
    fapiProfile: fapiProfile.profile,
    requireSignedRequestObject: Boolean(v['require-signed-request-object']),
    isVerified: Boolean(v.verified),
    requirePushedAuthorizationRequests: Boolean(v['require-par']),
    allowedResources: list('allowed-resource'),
    requirePkce: !v['no-pkce'],
    grantTypes: v['grant-type'] === undefined ? undefined : list('grant-type').map((g) => GRANT_TYPE_NAMES[g] ?? g),
  } as NewClientInput;
  const events = cliEvents(cfg, store);
  let created;
  try {
    created = await createApp({ store, events, audit: cliAudit(store) }, input, OPERATOR, 'cli');
  } finally {
    await events.finish();
  }
  const { client, clientSecret } = created;
  // The app as the admin API shows it; the secret as the app API shows it on create, this once.
  print({ ...adminAppJson(client), ...(clientSecret ? { client_secret: clientSecret } : {}) });
  // What its algorithms mean for its relying party: on stderr, so that the JSON on stdout stays clean.
  for (const note of signingNotes(client.idTokenSignedResponseAlg, 'cli')) cliIo().stderr(`note: ${note}\n`);
}

export async function clientsCommand(store: Store, cfg: Config, sub: string | undefined, argv: string[]): Promise<void> {
  if (sub === 'list') {
    parseCommand(argv, optionsOf('clients list'));
    return print((await listClients(store)).map(adminAppJson));
  }
  if (sub === 'show') {
    const { positionals } = parseCommand(argv, optionsOf('clients show'), 1);
    return print(adminAppJson(await clientById(store, required(positionals[0], 'CLIENT_ID'))));
  }
  if (sub === 'create') return create(store, cfg, argv);
  const { appChangeCommand, isAppChange } = await import('./apps.js');
  if (isAppChange(sub)) return appChangeCommand(store, cfg, sub, argv);
  throw new UsageError(`unknown command: clients ${sub ?? ''}`.trim());
}
