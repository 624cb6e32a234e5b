// Usage text and usage errors of the operator CLI (exit code 2), and the
// strict reading of a command's own arguments. Light on purpose: `keyflow
// --help` loads this module and nothing heavier.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { cliIo } from './io.js';

/**
 * A command line the CLI refuses (exit 2). `showUsage: false` for a refusal
 * that the message alone explains (a missing confirmation): the usage text
 * would bury it.
 */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly showUsage = true,
  ) {
    super(message);
  }
}

/** node:util's parseArgs, whose refusal of a command line is a UsageError (one line, exit 2). */
export function parseOrUsage<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (err) {
    throw new UsageError((err as Error).message.split('\n')[0]!);
  }
}

export type Options = NonNullable<ParseArgsConfig['options']>;

/** Strict options and at most `positionals` positional arguments. */
export function parseCommand(argv: string[], options: Options, positionals = 0) {
  const parsed = parseOrUsage({ args: argv, options, allowPositionals: positionals > 0, strict: true });
  if (parsed.positionals.length > positionals) throw new UsageError(`unexpected argument: ${parsed.positionals[positionals]}`);
  return parsed;
}

/** A flag or argument the command cannot do without. */
export function required<T>(value: T | undefined, flag: string): T {
  if (value === undefined) throw new UsageError(`${flag} is required`);
  return value;
}

export const USAGE = `usage: keyflow <command> [options]        (npm run cli -- <command> ...)

  users create --email E --password P [--name N] [--username U] [--admin]
  users list
  users update USER [--name N] [--email E] [--username U] [--role user|admin]
                 [--phone-number-verified true|false]   (only an administrator marks a phone number verified)
  users disable USER                      (signs them out everywhere, revokes their grants; their personal
                 access tokens are refused while disabled)
  users enable USER
  users reset-2fa USER                    (removes TOTP, backup codes and passkeys)
  users delete USER                       (also deletes the user's sessions, passkeys, personal access
                 tokens and consents, and revokes their grants and refresh families)
                 (USER: id, email or username; the last enabled admin cannot be demoted, disabled or deleted: exit 1)
  tokens revoke --user USER               (every OAuth grant, refresh family and personal access token of USER)
  tokens create --user USER --name N --scope "S …" --expires-in-days D
                                          (a personal access token of USER, as on their tokens page; printed once)

  clients create --name N [--redirect-uri URI]... [--scope "openid profile ..."] [--public]
                 [--auth-method client_secret_basic|client_secret_post|private_key_jwt|none]
                 [--redirect-uri-wildcard GLOB]... [--redirect-uri-regex REGEX]...
                 [--description D] [--post-logout-redirect-uri URI]... [--backchannel-logout-uri URI]
                 [--oidc-field teams|apps|domains|gpg_keys|social_accounts]... [--jwks JSON | --jwks-uri URI]
                 [--id-token-alg ML-DSA-65|RS256|PS256|ES256] [--userinfo-alg ML-DSA-65|RS256|PS256|ES256|none]
                 [--introspection-alg ALG] [--request-object-alg RS256|PS256|ES256|EdDSA|none] [--fapi-profile fapi2|none]
                 [--require-signed-request-object] [--verified] [--require-par] [--allowed-resource URI]... [--no-pkce]
                 [--access-token-alg ML-DSA-65|RS256|PS256|ES256]   (default RS256: what resource servers verify)
                 [--machine-access RESOURCE=SCOPE[,SCOPE…]]...   (client_credentials: what it may get for itself;
                 a client with machine access needs no redirect URI)
                 (an app with ML-DSA-65 ID tokens, the default, gets a note on stderr: most RP libraries need RS256)
  clients list
  clients show CLIENT_ID                  (one app, as the admin API shows it; \`clients\` is also \`apps\`)
  clients update CLIENT_ID [--name N] [--description D] [--redirect-uri URI]... [--redirect-uri-wildcard GLOB]...
                 [--redirect-uri-regex REGEX]... [--scope "openid profile ..."] [--post-logout-redirect-uri URI]...
                 [--backchannel-logout-uri URI (empty: none)] [--allowed-resource URI]...
                 [--id-token-alg ALG] [--access-token-alg ALG (empty: the default)]
                                          (as the app API changes it: a list given replaces the app's list)
  clients rotate-secret CLIENT_ID         (a new client secret, printed once; the old one stops working at once)
  clients delete CLIENT_ID --yes          (deletes the app and revokes its grants, refresh tokens and consents:
                 its tokens stop working at once; without --yes nothing is deleted: exit 2)
                 (update, rotate-secret and delete tell the app owner's webhooks: app.updated, app.deleted)
  apps verify CLIENT_ID [--unverify]      (marks the app verified by this site, or not)
  apps deactivate CLIENT_ID               (refused at every OAuth endpoint; its grants, refresh tokens and consents are revoked)
  apps reactivate CLIENT_ID               (it works again; what deactivation revoked stays revoked)
  apps machine-access CLIENT_ID (--allow RESOURCE=SCOPE[,SCOPE…]... | --none)
                                          (what the app may get for itself with client_credentials, replacing what
                 it had; its machine tokens are revoked when this changes)

  config get [KEY]
  config set KEY VALUE

  keys list                               (each key's phase: published, signing, previous, retiring, removed)
  keys rotate [--alg ML-DSA-65|RS256|PS256|ES256]  (default: all; the new key is published at once, signs from signs_from)
  keys retire KID                         (not the signing key; published until published_until)

  flows list [--client ID] [--user ID] [--all]   (open flows; --all includes finished ones)

  webhooks tail ID [--limit N] [--follow]   (recent deliveries, newest first, one line each: time, event,
                 success|failure, status or error kind, duration, delivery id; N ≤ 50;
                 --follow: oldest first, then new ones every second until Ctrl-C)

  audit list [--limit N] [--event NAME]     (the audit log: admin events, team changes, scope grants, client_credentials tokens;
                 newest first; N ≤ 1000, default 100)

  teams list [--user USER] [--limit N]      (every team by slug, or USER's teams nearest first with role and
                 inherited; N ≤ 1000, default 100)
  teams create --name N --slug S --owner USER [--description D] [--parent TEAM] [--member-groups]
  teams show TEAM                           (the team and its members: user_id, email, role, groups)
  teams add-member TEAM --user USER [--role member|admin|co-owner|owner] [--group SLUG]...
  teams remove-member TEAM --user USER      (a team's last owner cannot be removed: exit 1)
  teams delete TEAM [--cascade]             (a team with child teams only with --cascade, which deletes them too)
                 (TEAM: id or slug; USER: id, email or username)

  sources list                              (OAuth sources for "Sign in with …"; never their client secret)
  sources add --name N --slug S (--issuer URL | --authorization-endpoint URL --token-endpoint URL
                 --userinfo-endpoint URL) --client-id ID [--client-secret S | --client-secret-stdin]
                 [--scope "openid email profile"] [--allow-sign-up] [--link-by-verified-email]
                 [--claim subject|email|email_verified|name|username=CLAIM]... [--disabled]
  sources update SOURCE [the same options, each optional] [--no-client-secret] [--enabled]
                 [--no-allow-sign-up] [--no-link-by-verified-email]
  sources remove SOURCE                     (also unlinks every social account made through it)
                 (SOURCE: id or slug)

  invites create [--email E] [--role user|admin] [--expires-in-days N]   (prints the sign-up link, once;
                 N from 1 to 90, default 7; with --email the sign-up must use that address)
  invites list [--limit N]                  (newest first, pending and past, with their state; N ≤ 1000)
  invites revoke ID                         (a used invitation cannot be revoked: exit 1)
                 (who may sign up at /signup: config set registration open|invite|closed)

Output is JSON on stdout (webhooks tail: text lines). A wrong command line (unknown command or
option, invalid value, unknown webhook id, team, user, source or invitation) exits with 2; a command that cannot be carried out
(conflict, MongoDB unreachable) with 1.`;

/** A command's result: JSON on stdout. */
export const print = (value: unknown): void => cliIo().stdout(JSON.stringify(value, null, 2) + '\n');
