// `keyflow sources ...`: the operator's OAuth sources (upstream identity
// providers for "Sign in with …"), through the same changes as the admin API
// (sources/source-changes.ts): the same checks, the sealed secret, the same
// oauth_source.* admin events with the operator as actor. Output is sourceJson
// (never the secret). Invalid values exit 2; a source the command line names
// that does not exist, and a taken slug, exit 1.
import type { Config } from '../lib/config/env.js';
import { NotFoundError } from '../lib/model/errors.js';
import { sourceJson, type OAuthSourceDoc } from '../lib/model/oauth-sources.js';
import { loadKek } from '../lib/security/kek.js';
import type { Store } from '../lib/store/db.js';
import { listSources } from '../lib/store/oauth-sources.js';
import { createSource, findSourceByRef, removeSource, updateSource, type SourceDeps } from '../lib/sources/source-changes.js';
import { cliEvents, OPERATOR } from './events.js';
import { print, UsageError, parseOrUsage } from './usage.js';
import { optionsOf } from './commands.js';
import { readStdin } from './io.js';

/** The options of `add` and `update` (update's are the more); `--no-X` turns a flag off. */
const SOURCE_OPTIONS = optionsOf('sources update');

function commandLine(argv: string[], positionals: number) {
  const parsed = parseOrUsage({ args: argv, options: SOURCE_OPTIONS, allowPositionals: true, allowNegative: true, strict: true });
  if (parsed.positionals.length > positionals) throw new UsageError(`unexpected argument: ${parsed.positionals[positionals]}`);
  return parsed;
}

type Values = ReturnType<typeof commandLine>['values'];

/** `--claim subject=sub` …: the claim mapping entries the command line names. */
function claims(list: string[] | undefined): Record<string, string> | undefined {
  if (list === undefined) return undefined;
  const names: Record<string, string> = {
    subject: 'subject',
    email: 'email',
    email_verified: 'email_verified',
    'email-verified': 'email_verified',
    name: 'name',
    username: 'username',
  };
  const mapping: Record<string, string> = {};
  for (const entry of list) {
    const at = entry.indexOf('=');
    const key = names[entry.slice(0, at)];
    if (at < 1 || key === undefined)
      throw new UsageError(`--claim must be FIELD=CLAIM with FIELD one of subject, email, email_verified, name, username (got ${entry})`);
    mapping[key] = entry.slice(at + 1);
  }
  return mapping;
}

/**
 * The NewSourceInput fields the command line names (absent ones left out, for
 * update). `--issuer` makes an oidc source, endpoints an oauth2 source.
 */
async function fields(v: Values): Promise<Record<string, unknown>> {
  // With allowNegative, Node reads the declared `--no-client-secret` as client-secret: false.
  const given: unknown = v['client-secret'];
  const noSecret = given === false || v['no-client-secret'] === true;
  const secrets = [typeof given === 'string', v['client-secret-stdin'] === true, noSecret].filter(Boolean).length;
  if (secrets > 1) throw new UsageError('give at most one of --client-secret, --client-secret-stdin and --no-client-secret');
  if (v.disabled !== undefined && v.enabled !== undefined) throw new UsageError('give --enabled or --disabled, not both');
  const endpoints = v['authorization-endpoint'] ?? v['token-endpoint'] ?? v['userinfo-endpoint'];
  if (v.issuer !== undefined && endpoints !== undefined) throw new UsageError('give --issuer (oidc) or the three endpoints (oauth2), not both');
  const out: Record<string, unknown> = {
    name: v.name,
    slug: v.slug,
    kind: v.issuer !== undefined ? 'oidc' : endpoints !== undefined ? 'oauth2' : undefined,
    issuer: v.issuer,
    authorization_endpoint: v['authorization-endpoint'],
    token_endpoint: v['token-endpoint'],
    userinfo_endpoint: v['userinfo-endpoint'],
    client_id: v['client-id'],
    client_secret: v['client-secret-stdin'] ? await readStdin() : noSecret ? null : v['client-secret'],
    scopes: (v.scope as string | undefined)?.split(' ').filter((s) => s !== ''),
    allow_sign_up: v['allow-sign-up'],
    link_by_verified_email: v['link-by-verified-email'],
    claim_mapping: claims(v.claim as string[] | undefined),
    enabled: v.disabled !== undefined ? !v.disabled : v.enabled,
  };
  return Object.fromEntries(Object.entries(out).filter(([, value]) => value !== undefined));
}

async function sourceByRef(store: Store, ref: string | undefined): Promise<OAuthSourceDoc> {
  if (ref === undefined) throw new UsageError('the source (id or slug) is required');
  return (await findSourceByRef(store, ref)) ?? raise(new NotFoundError(`no OAuth source with id or slug ${ref}`));
}

function raise(err: Error): never {
  throw err;
}

export async function sourcesCommand(store: Store, cfg: Config, sub: string | undefined, argv: string[]): Promise<void> {
  if (sub === 'list') {
    if (argv.length) throw new UsageError(`unexpected argument: ${argv[0]}`);
    print((await listSources(store)).map(sourceJson));
    return;
  }
  if (sub !== 'add' && sub !== 'update' && sub !== 'remove') throw new UsageError(`unknown command: sources ${sub ?? ''}`.trim());
  const { values, positionals } = commandLine(argv, sub === 'add' ? 0 : 1);
  const events = cliEvents(cfg, store);
  const deps: SourceDeps = { store, kek: loadKek(cfg.kek, cfg.dataDir), events };
  try {
    if (sub === 'add') {
      const input = await fields(values);
      if (input.client_id === undefined) throw new UsageError('--client-id is required');
      print(sourceJson(await createSource(deps, input, OPERATOR)));
      return;
    }
    const source = await sourceByRef(store, positionals[0]);
    if (sub === 'update') {
      print(sourceJson(await updateSource(deps, source, await fields(values), OPERATOR)));
      return;
    }
    const { socialAccountsUnlinked } = await removeSource(deps, source, OPERATOR);
    print({ deleted: source._id, slug: source.slug, social_accounts_unlinked: socialAccountsUnlinked });
  } finally {
    await events.finish();
  }
}
