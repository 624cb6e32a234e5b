// Every command of the operator CLI, defined once: its arguments, its options
// (what the parser accepts and what the help says of each) and what it does.
// The usage text, each command's `--help`, the command reference of the docs
// (docs/cli-reference.md, `npm run docs:cli`) and the parsers of the command
// modules (optionsOf) all come from here, so they cannot disagree. Light on
// purpose: `keyflow --help` loads this and nothing heavier.

export interface OptionDef {
  type: 'string' | 'boolean';
  multiple?: boolean;
  /** The value's name in the synopsis (`--email EMAIL`); strings only. */
  value?: string;
  /** Shown without brackets: the command cannot do without it. */
  required?: boolean;
  /** A boolean that `--no-<name>` turns off (the command parses with allowNegative). */
  negatable?: boolean;
  help: string;
}

export interface CommandDef {
  /** `group sub`, e.g. `clients create`. */
  name: string;
  /** Positional arguments, in order (their names as the synopsis shows them). */
  args?: string[];
  options?: Record<string, OptionDef>;
  /** What the command does, in a sentence or two. */
  summary: string;
  /** Another name of the group (`apps` for `clients`). */
  alias?: string;
  /** Its arguments are taken as they are, never read as options (a kid may start with `-`). */
  literalArgs?: boolean;
}

const s = (value: string, help: string, extra: Partial<OptionDef> = {}): OptionDef => ({ type: 'string', value, help, ...extra });
const many = (value: string, help: string): OptionDef => ({ type: 'string', value, help, multiple: true });
const flag = (help: string): OptionDef => ({ type: 'boolean', help });
const req = (value: string, help: string): OptionDef => s(value, help, { required: true });

const ALGS = 'ML-DSA-65|RS256|PS256|ES256';
const REDIRECT_URIS: Record<string, OptionDef> = {
  'redirect-uri': many('URI', 'a redirect URI, matched exactly (repeatable)'),
  'redirect-uri-wildcard': many('GLOB', 'a redirect URI with `*` in the leftmost host label (repeatable)'),
  'redirect-uri-regex': many('REGEX', 'a redirect URI matched by an RE2 expression (repeatable; at most 5)'),
};
const SOURCE_FIELDS: Record<string, OptionDef> = {
  name: s('N', 'the name on the sign-in button'),
  slug: s('S', 'the short name in URLs'),
  issuer: s('URL', 'an OpenID provider: its endpoints from discovery'),
  'authorization-endpoint': s('URL', 'a plain OAuth provider: its authorization endpoint'),
  'token-endpoint': s('URL', 'its token endpoint'),
  'userinfo-endpoint': s('URL', 'its UserInfo (or user) endpoint'),
  'client-id': s('ID', "Keyflow's client id at the provider"),
  'client-secret': s('S', "Keyflow's client secret at the provider (stored sealed)"),
  'client-secret-stdin': flag('read the client secret from stdin instead'),
  scope: s('"openid email profile"', 'the scopes asked of the provider'),
  'allow-sign-up': { type: 'boolean', negatable: true, help: 'a person without an account gets one at first sign-in (--no-allow-sign-up: not)' },
  'link-by-verified-email': {
    type: 'boolean',
    negatable: true,
    help: "link to the account with the provider's verified email (--no-link-by-verified-email: not)",
  },
  claim: many('FIELD=CLAIM', 'which claim holds subject, email, email_verified, name or username (repeatable)'),
  disabled: flag('not offered on the sign-in page'),
};

export const COMMANDS: readonly CommandDef[] = [
  {
    name: 'users create',
    options: {
      email: req('E', "the user's email"),
      password: s('P', 'the password (at least 12 characters, not the email, not a common one); or --password-stdin'),
      'password-stdin': flag('read the password from stdin (e.g. a pipe), keeping it out of the shell history and the process list'),
      name: s('N', "the user's name"),
      username: s('U', 'a username'),
      admin: flag('a site admin'),
    },
    summary: 'Creates a user.',
  },
  { name: 'users list', summary: 'Every user, as the admin API shows them.' },
  { name: 'users show', args: ['USER'], summary: 'One user (USER: id, email or username), as the admin API shows them.' },
  {
    name: 'users update',
    args: ['USER'],
    options: {
      name: s('N', 'the name'),
      email: s('E', 'the email'),
      username: s('U', 'the username'),
      role: s('user|admin', 'the role (the last enabled admin cannot be demoted: exit 1)'),
      'phone-number-verified': s('true|false', 'only an administrator marks a phone number verified'),
    },
    summary: 'Changes a user (USER: id, email or username).',
  },
  {
    name: 'users disable',
    args: ['USER'],
    summary: 'Signs them out everywhere and revokes their grants; their personal access tokens are refused while disabled.',
  },
  { name: 'users enable', args: ['USER'], summary: 'Lets a disabled user sign in again.' },
  { name: 'users reset-2fa', args: ['USER'], summary: 'Removes their authenticator app, backup codes and passkeys.' },
  {
    name: 'users delete',
    args: ['USER'],
    summary: "Deletes the user's account, sessions, passkeys, personal access tokens and consents, and revokes their grants and refresh families.",
  },
  {
    name: 'tokens revoke',
    options: { user: req('USER', 'the user') },
    summary: 'Revokes every OAuth grant, refresh family and personal access token of USER.',
  },
  {
    name: 'tokens create',
    options: {
      user: req('USER', 'the user'),
      name: req('N', 'the token name'),
      scope: req('"S …"', 'its scopes (those the user may hold)'),
      'expires-in-days': req('D', 'its lifetime'),
    },
    summary: 'A personal access token of USER, as on their tokens page; printed once.',
  },
  {
    name: 'clients create',
    alias: 'apps',
    options: {
      name: req('N', 'the app name'),
      description: s('D', 'a description'),
      ...REDIRECT_URIS,
      scope: s('"openid profile …"', 'the scopes it may ask for'),
      public: flag('a public client (no secret; PKCE)'),
      'auth-method': s('client_secret_basic|client_secret_post|private_key_jwt|none', 'how it authenticates at the token endpoint'),
      'post-logout-redirect-uri': many('URI', 'where RP-initiated logout may return (repeatable)'),
      'backchannel-logout-uri': s('URI', 'where back-channel logout tokens go'),
      'oidc-field': many('teams|apps|domains|gpg_keys|social_accounts', 'an opt-in claim (repeatable)'),
      jwks: s('JSON', 'its public keys, for private_key_jwt and signed requests'),
      'jwks-uri': s('URI', 'where its public keys are'),
      'id-token-alg': s(ALGS, 'the ID token signature (default ML-DSA-65: most RP libraries need RS256)'),
      'userinfo-alg': s(`${ALGS}|none`, 'signed UserInfo'),
      'introspection-alg': s(ALGS, 'signed introspection answers'),
      'request-object-alg': s('RS256|PS256|ES256|EdDSA|none', 'the only algorithm of its request objects'),
      'access-token-alg': s(ALGS, 'the access token signature (default RS256: what resource servers verify)'),
      'fapi-profile': s('fapi2|none', 'hold it to the FAPI 2.0 Security Profile'),
      'require-signed-request-object': flag('its requests come only as signed request objects'),
      'require-par': flag('its requests come only through PAR'),
      verified: flag('marked verified by this site'),
      'allowed-resource': many('URI', 'a resource indicator it may ask for (repeatable)'),
      'no-pkce': flag('a confidential client that may leave PKCE out'),
      'machine-access': many('RESOURCE=SCOPE[,SCOPE…]', 'what it may get for itself with client_credentials (repeatable; it then needs no redirect URI)'),
      'grant-type': many(
        'authorization_code|implicit|refresh_token|client_credentials|device_code|token_exchange',
        'a grant type it uses (repeatable; default authorization_code). Without authorization_code or implicit it needs no redirect URI and is refused at the authorization endpoint',
      ),
    },
    summary: 'Creates an app; prints it with its secret, this once (and a note on stderr when its ID tokens are ML-DSA-65).',
  },
  { name: 'clients list', alias: 'apps', summary: 'Every app, as the admin API shows them.' },
  { name: 'clients show', alias: 'apps', args: ['CLIENT_ID'], summary: 'One app, as the admin API shows it.' },
  {
    name: 'clients update',
    alias: 'apps',
    args: ['CLIENT_ID'],
    options: {
      name: s('N', 'the name'),
      description: s('D', 'the description'),
      ...REDIRECT_URIS,
      scope: s('"openid profile …"', 'the scopes it may ask for'),
      'post-logout-redirect-uri': many('URI', 'post-logout redirect URIs (repeatable)'),
      'backchannel-logout-uri': s('URI', 'the back-channel logout URI (empty: none)'),
      'allowed-resource': many('URI', 'resource indicators (repeatable)'),
      'id-token-alg': s(ALGS, 'the ID token signature'),
      'access-token-alg': s(ALGS, 'the access token signature (empty: the default)'),
    },
    summary: "Changes an app as the app API does (a list given replaces the app's list); the owner's webhooks hear app.updated.",
  },
  {
    name: 'clients rotate-secret',
    alias: 'apps',
    args: ['CLIENT_ID'],
    summary: 'A new client secret, printed once; the old one stops working at once.',
  },
  {
    name: 'clients delete',
    alias: 'apps',
    args: ['CLIENT_ID'],
    options: { yes: flag('confirm: its grants, refresh tokens and consents are revoked; without it nothing is deleted (exit 2)') },
    summary: 'Deletes the app; its tokens stop working at once.',
  },
  {
    name: 'apps verify',
    args: ['CLIENT_ID'],
    options: { unverify: flag('mark it not verified') },
    summary: 'Marks the app verified by this site (shown on consent pages and in the apps claim).',
  },
  { name: 'apps deactivate', args: ['CLIENT_ID'], summary: 'Refused at every OAuth endpoint; its grants, refresh tokens and consents are revoked.' },
  { name: 'apps reactivate', args: ['CLIENT_ID'], summary: 'It works again; what deactivation revoked stays revoked.' },
  {
    name: 'apps machine-access',
    args: ['CLIENT_ID'],
    options: {
      allow: many('RESOURCE=SCOPE[,SCOPE…]', 'a resource and the scopes the app may hold there (repeatable; replaces what it had)'),
      none: flag('remove its machine access'),
    },
    summary: 'What the app may get for itself with client_credentials; its machine tokens are revoked when this changes.',
  },
  { name: 'config get', args: ['[KEY]'], summary: 'The site settings (secrets masked), or one.' },
  { name: 'config set', args: ['KEY', 'VALUE'], summary: 'Changes a site setting (recorded as admin.config.update).' },
  {
    name: 'backup',
    options: { out: req('DIR', 'a new (or empty) folder for the backup') },
    summary:
      "Copies Keyflow's MongoDB database into DIR: a gzip file of Extended JSON lines per collection and manifest.json (counts, SHA-256, the KEK's fingerprint). The KEK is not in it: keep it apart.",
  },
  {
    name: 'restore',
    options: { from: req('DIR', 'a folder `keyflow backup` wrote') },
    summary: "Restores a backup into an empty database (MONGODB_DATABASE), once every file checks and KEYFLOW_KEK is the backup's; otherwise writes nothing.",
  },
  { name: 'keys list', summary: 'Each signing key with its phase: published, signing, previous, retiring, removed.' },
  {
    name: 'keys rotate',
    options: { alg: s(ALGS, 'one algorithm (default: all)') },
    summary: 'A new key, published at once, signing from signs_from.',
  },
  { name: 'keys retire', args: ['KID'], literalArgs: true, summary: 'Retires a key that no longer signs; published until published_until.' },
  {
    name: 'flows list',
    options: { client: s('ID', 'one client'), user: s('ID', 'one user'), all: flag('include finished ones') },
    summary: 'Open flows (Temporal workflows).',
  },
  {
    name: 'webhooks tail',
    args: ['ID'],
    options: { limit: s('N', 'how many (at most 50)'), follow: flag('oldest first, then new ones every second until Ctrl-C') },
    summary: 'Recent deliveries, newest first, one line each: time, event, outcome, status or error kind, duration, delivery id.',
  },
  {
    name: 'audit list',
    options: {
      user: s('ID', 'records of one user (who acted or was acted on)'),
      client: s('ID', 'records of one client (which acted or was acted on)'),
      event: s('NAME', 'an event, or a prefix such as login.* (docs/audit.md lists them)'),
      outcome: s('success|failure', 'one outcome'),
      ip: s('IP', 'records caused from one address'),
      since: s('TIME', 'at or after (ISO 8601, e.g. 2026-11-28 or 2026-11-28T10:00:00Z)'),
      until: s('TIME', 'before (ISO 8601)'),
      limit: s('N', 'how many (at most 1000, default 100)'),
      cursor: s('C', 'the next page: the cursor the page before printed on stderr'),
    },
    summary: 'The audit trail, newest first, one JSON record per line.',
  },
  {
    name: 'audit verify',
    options: {
      since: s('TIME', 'verify the batches from this time on (ISO 8601; default: the whole chain)'),
      file: s('FILE', 'verify an export instead of the database (no MongoDB needed)'),
      jwks: s('FILE', "with --file: the site's public keys to trust (a JWK Set saved from /jwks); default: the keys the export names"),
    },
    summary: 'Checks the sealed chain: every record changed, removed or inserted after sealing, and every gap, is printed; exit 1 if any.',
  },
  {
    name: 'audit export',
    options: { since: s('TIME', 'from this time (ISO 8601)'), until: s('TIME', 'before this time (ISO 8601)') },
    summary: 'The sealed chain between two times as JSON lines with the batch proofs, for keyflow audit verify --file.',
  },
  {
    name: 'teams list',
    options: { user: s('USER', "one user's teams, nearest first"), limit: s('N', 'how many (at most 1000, default 100)') },
    summary: "Every team by slug, or a user's teams with role and inherited.",
  },
  {
    name: 'teams create',
    options: {
      name: req('N', 'the name'),
      slug: req('S', 'the short name'),
      owner: req('USER', 'its owner'),
      description: s('D', 'a description'),
      parent: s('TEAM', 'its parent team'),
      'member-groups': flag('members may be put in groups'),
    },
    summary: 'Creates a team.',
  },
  { name: 'teams show', args: ['TEAM'], summary: 'The team and its members (user_id, email, role, groups).' },
  {
    name: 'teams add-member',
    args: ['TEAM'],
    options: { user: req('USER', 'the member'), role: s('member|admin|co-owner|owner', 'their role'), group: many('SLUG', 'a group (repeatable)') },
    summary: 'Adds a member at once (an operator provisions).',
  },
  {
    name: 'teams remove-member',
    args: ['TEAM'],
    options: { user: req('USER', 'the member') },
    summary: "Removes a member (a team's last owner cannot be removed: exit 1).",
  },
  {
    name: 'teams delete',
    args: ['TEAM'],
    options: { cascade: flag('delete its child teams too') },
    summary: 'Deletes a team (one with child teams only with --cascade).',
  },
  { name: 'sources list', summary: 'OAuth sources for "Sign in with …"; never their client secret.' },
  { name: 'sources add', options: SOURCE_FIELDS, summary: 'Adds an OAuth source (--name, --slug, --client-id, and --issuer or the three endpoints).' },
  {
    name: 'sources update',
    args: ['SOURCE'],
    options: {
      ...SOURCE_FIELDS,
      'no-client-secret': flag('remove the client secret'),
      enabled: flag('offered on the sign-in page again'),
    },
    summary: 'Changes an OAuth source (SOURCE: id or slug).',
  },
  { name: 'sources remove', args: ['SOURCE'], summary: 'Removes it, and unlinks every social account made through it.' },
  {
    name: 'invites create',
    options: { email: s('E', 'the sign-up must use this address'), role: s('user|admin', 'the role'), 'expires-in-days': s('N', '1 to 90, default 7') },
    summary: 'An invitation; prints the sign-up link, once.',
  },
  { name: 'invites list', options: { limit: s('N', 'how many (at most 1000)') }, summary: 'Invitations, newest first, pending and past, with their state.' },
  { name: 'invites revoke', args: ['ID'], summary: 'Revokes an invitation (a used one cannot be: exit 1).' },
];

/** The definition of `name` (`group sub`); throws for a command the table does not define (a programming error). */
export function commandDef(name: string): CommandDef {
  const def = COMMANDS.find((c) => c.name === name);
  if (!def) throw new Error(`no CLI command ${name} is defined`);
  return def;
}

/** A group's one name: `apps` is `clients`. */
const canonicalGroup = (group: string): string => COMMANDS.find((c) => c.alias === group)?.name.split(' ')[0] ?? group;

/** The commands of `group` (either of its names), in the table's order; empty for an unknown group. */
export function groupCommands(group: string): CommandDef[] {
  return COMMANDS.filter((c) => canonicalGroup(c.name.split(' ')[0]!) === canonicalGroup(group));
}

/** Whether `group` is a command of one word (`backup`): what follows it is its arguments. */
export const isSingleCommand = (group: string): boolean => COMMANDS.some((c) => c.name === group);

/** The command `group sub` names (`sub` undefined for one of one word); undefined for none. */
export function commandOf(group: string, sub: string | undefined): CommandDef | undefined {
  if (isSingleCommand(group)) return commandDef(group);
  return groupCommands(group).find((c) => c.name.split(' ')[1] === sub);
}

/** The parser options (node:util parseArgs) of `name`. */
export function optionsOf(name: string): Record<string, { type: 'string' | 'boolean'; multiple?: boolean }> {
  return Object.fromEntries(
    Object.entries(commandDef(name).options ?? {}).map(([key, o]) => [key, o.multiple ? { type: o.type, multiple: true } : { type: o.type }]),
  );
}

/** One command's synopsis line: its name, arguments and options. */
export function synopsis(def: CommandDef): string {
  const options = Object.entries(def.options ?? {}).map(([key, o]) => {
    const text = `--${o.negatable ? '[no-]' : ''}${key}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`;
    return o.required ? text : `[${text}]${o.multiple ? '...' : ''}`;
  });
  return [def.name, ...(def.args ?? []), ...options].join(' ');
}

/** A command's own help (`keyflow <group> <sub> --help`): synopsis, what it does, each option. */
export function commandHelp(def: CommandDef): string {
  const options = Object.entries(def.options ?? {}).map(
    ([key, o]) =>
      `  --${o.negatable ? '[no-]' : ''}${key}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}${o.required ? ' (required)' : ''}\n      ${o.help}`,
  );
  return [`usage: keyflow ${synopsis(def)}`, '', def.summary, ...(options.length ? ['', 'options:', ...options] : [])].join('\n') + '\n';
}
