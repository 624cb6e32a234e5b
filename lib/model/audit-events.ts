// The audit trail's event catalogue and the shape of a record: one list that
// the recorder, the search filters, the CLI and docs/audit.md (generated,
// `npm run docs:audit`, checked by a unit test) all read. Pure: no I/O.
//
// Two streams, as operators know them from other providers: `user` (sign-in,
// factors, authorization, tokens: what users and clients did) and `admin`
// (what operators and administrators changed). Admin webhooks receive their
// own event names (lib/model/webhook-events.ts); docs/audit.md maps the two.

export type AuditStream = 'user' | 'admin';

export interface AuditEventSpec {
  stream: AuditStream;
  /** When the event is recorded, for docs/audit.md. */
  when: string;
  /** The keys of the record's `data`, each with what it holds (never a secret, token, code or password). */
  data?: Record<string, string>;
}

const user = (when: string, data?: Record<string, string>): AuditEventSpec => ({ stream: 'user', when, ...(data ? { data } : {}) });
const admin = (when: string, data?: Record<string, string>): AuditEventSpec => ({ stream: 'admin', when, ...(data ? { data } : {}) });

const CLIENT = { client_id: 'the client' };
const TEAM = { team_id: 'the team', slug: 'its slug', name: 'its name' };
const MEMBER = { user_id: 'the member', role: 'the role', groups: 'the groups' };
const SOURCE = { source_id: 'the provider', slug: 'its slug', name: 'its name' };
const WEBHOOK = { webhook_id: 'the webhook', scope: 'user or admin', owner_user_id: 'its owner', name: 'its name' };
const GRANT = { grant_id: 'the grant (user, client, consent) the tokens belong to' };

export const AUDIT_CATALOGUE = {
  // Sign-in and sessions.
  login: user('a user signed in (password, passkey, upstream provider), after any second factor', {
    method: 'password, passkey or social',
    amr: 'authentication methods (RFC 8176)',
    acr: 'the authentication context reached',
  }),
  'login.failed': user('a sign-in was refused', {
    method: 'password, passkey, social or second_factor',
    reason: 'unknown_account, wrong_password, second_factor_failed, passkey_failed (a passkey sign-in that did not verify), disabled, limited or captcha',
    account: 'an opaque reference to the email tried (the same email, the same reference; never the email)',
  }),
  logout: user('a user signed out (the account menu or RP-initiated logout)', { client_id: 'the RP that asked, for RP-initiated logout' }),
  'session.revoked': user('a session was ended by someone other than its browser', {
    session_id: 'the session (a public reference)',
    by: 'user, admin or account_change (disable, delete, password change)',
    count: 'how many sessions, when several were ended at once',
  }),
  reauth: user('a signed-in user signed in again (password, second factor) for a sensitive change', {
    method: 'the strongest factor confirmed: passkey, totp, password or social',
  }),
  // Factors and credentials.
  'password.changed': user('a user changed their password (or an administrator set one)', {
    first: 'whether it was the first password of an account made by an upstream sign-in',
  }),
  'totp.enabled': user('an authenticator app was enrolled'),
  'totp.disabled': user('an authenticator app was removed'),
  'passkey.added': user('a passkey was registered', { credential_id: 'the passkey (its credential id)' }),
  'passkey.removed': user('a passkey was removed', { credential_id: 'the passkey (its credential id)' }),
  'backup_codes.generated': user('a new set of backup codes replaced the old one', { count: 'how many codes' }),
  'backup_code.used': user('a backup code was spent to sign in or confirm', { remaining: 'codes left' }),
  'pat.created': user('a personal access token was made', { token_id: 'the token (its public id)', scopes: 'its scopes', expires_at: 'its expiry' }),
  'pat.revoked': user('a personal access token was revoked', { token_id: 'the token (its public id)' }),
  // Authorization and tokens.
  'consent.granted': user('a user allowed a client (the consent page, or the device page: the remembered consent is extended)', {
    ...CLIENT,
    scopes: 'the scopes granted (team scopes in their bound form)',
  }),
  'consent.revoked': user("a user removed a client's access (the connected apps page): what they allowed is forgotten, the grants revoked", {
    ...CLIENT,
    grants: 'how many grants (with their tokens) were revoked',
  }),
  'code.issued': user('an authorization code was issued', { ...CLIENT, ...GRANT, scopes: 'its scopes' }),
  'code.redeemed': user('an authorization code was exchanged for tokens', { ...CLIENT, ...GRANT }),
  'code.replayed': user("a used authorization code was presented again: its grant's tokens are revoked", {
    ...CLIENT,
    ...GRANT,
    revoked: 'whether a grant was revoked',
  }),
  'token.issued': user(
    'tokens were issued: the token endpoint (actor the client; a refresh that rotates is counted in refresh.rotated instead), or the implicit flow at the authorization endpoint (grant_type implicit, actor the user)',
    {
      ...CLIENT,
      ...GRANT,
      grant_type: 'the grant type',
      scopes: 'the scopes granted',
      resource: 'the resource indicators (RFC 8707), if any',
      bound: 'dpop when sender-constrained with DPoP, else none',
      refresh_token: 'whether a refresh token came with it',
    },
  ),
  'refresh.rotated': user(
    "refresh tokens were rotated (new tokens issued on a refresh): counted in memory per grant and clock minute, one record per grant, minute and api process once the minute is over (or at a graceful shutdown); it carries no request's IP or id, as it stands for several",
    {
      ...CLIENT,
      ...GRANT,
      rotations: 'rotations of the grant in that minute',
      minute: 'the minute counted (its start, UTC)',
    },
  ),
  'refresh.reuse_detected': user('a rotated refresh token was presented after its retry window: the grant is revoked', { ...CLIENT, ...GRANT }),
  'token.revoked': user('a client revoked one of its tokens (RFC 7009; a refresh token revokes its grant)', {
    ...CLIENT,
    ...GRANT,
    token_type: 'access_token or refresh_token',
    by: 'client',
  }),
  'device.approved': user('a user approved a device authorization request', { ...CLIENT, scopes: 'the scopes approved' }),
  'device.denied': user('a user denied a device authorization request', CLIENT),
  'stepup.confirmed': user('a step-up challenge was confirmed (its code issued to the client)', {
    ...CLIENT,
    action: 'what the client asked to confirm',
    method: 'totp, passkey, backup (a backup code) or sudo (an open sudo window)',
  }),
  'stepup.denied': user('a step-up challenge ended unconfirmed (outcome failure; actor system when it expired)', {
    ...CLIENT,
    action: 'what the client asked to confirm',
    reason: 'denied (by the user, or no second factor enrolled), failed (a wrong factor), error or expired',
  }),
  'sudo.opened': user('a user opened a sudo window after confirming a step-up challenge', { ...CLIENT, seconds: 'its length' }),
  'sudo.ended': user('a sudo window ended (actor system: its workflow ends it at its expiry, or on a revocation by the user or a sign-out)', {
    ...CLIENT,
    reason: 'expired or revoked',
  }),
  // Client tokens (machine access) and scope grants.
  'team.scope.grant': user('a consent granted team-scoped permissions', {
    ...CLIENT,
    ...GRANT,
    user_id: 'the user',
    team_id: 'the team',
    permissions: 'the permissions',
  }),
  'site.scope.grant': user('a consent granted site scopes', {
    ...CLIENT,
    ...GRANT,
    user_id: 'the user',
    scopes: 'the site scopes',
    second_factor: 'the factor used',
  }),
  // Operators and administrators.
  'user.created': admin('an account was made (sign-up, the CLI, an invitation)', {
    admin: 'whether it is a site administrator',
    via: 'signup, invite, social or cli',
  }),
  'user.updated': admin(
    'an administrator or the operator changed an account (profile fields, phone verification), reset its second factors or revoked all its tokens',
    {
      changed: 'what changed: name, email, username, phone_number_verified, second_factors or tokens_revoked',
      grants_revoked: 'with tokens_revoked: how many grants were revoked',
      personal_access_tokens_revoked: 'with tokens_revoked: how many personal access tokens were deleted',
    },
  ),
  'user.disabled': admin('an administrator or the operator disabled an account (its sessions end, its grants are revoked)'),
  'user.enabled': admin('an administrator or the operator enabled an account again'),
  'user.deleted': admin('an administrator or the operator deleted an account'),
  'user.role.changed': admin('an account became or stopped being a site administrator', { admin: 'the new value' }),
  'client.created': admin('a client was registered (the CLI, the app API or pages, dynamic registration)', {
    ...CLIENT,
    via: 'cli, api, page or registration',
  }),
  'client.updated': admin(
    "a client's settings changed (its owner through the app API or pages, RFC 7592 management, the operator CLI; a site administrator's verification or machine access)",
    { ...CLIENT, changed: 'the settings changed (names only)' },
  ),
  'client.secret.rotated': admin("a client's secret was replaced", CLIENT),
  'client.deleted': admin('a client was deleted (its owner, RFC 7592 management, the operator CLI)', CLIENT),
  'client.deactivated': admin('a site administrator or the operator deactivated a client (its tokens stop working)', {
    ...CLIENT,
    grants_revoked: 'how many grants were revoked',
  }),
  'client.reactivated': admin('a site administrator or the operator reactivated a deactivated client', CLIENT),
  'key.rotated': admin('the operator staged a new signing key (`keys rotate`)', { kid: 'the key id', alg: 'its algorithm' }),
  'backup.created': admin("the operator copied Keyflow's database (`keyflow backup`)", {
    collections: 'how many collections',
    documents: 'how many documents',
    kek_id: "the fingerprint of the KEK the copy's sealed keys need",
  }),
  'backup.restored': admin('the operator restored a backup into an empty database (`keyflow restore`)', {
    collections: 'how many collections',
    documents: 'how many documents',
    backup_finished_at: 'when the restored backup was taken',
  }),
  'key.retired': admin('the operator retired a signing key (`keys retire`)', { kid: 'the key id', alg: 'its algorithm' }),
  'config.changed': admin('site settings changed (the admin API, the console or `config set`)', {
    changed: 'the names of the settings changed',
    values: 'the new values of the settings changed that are not secret',
  }),
  'invite.create': admin('a sign-up invitation was made (admin webhooks get it under the same name, with the email)', {
    invite_id: 'the invitation',
    role: 'the role it gives',
    expires_at: 'its expiry',
  }),
  'invite.revoke': admin('a sign-up invitation was revoked (admin webhooks get it under the same name)', { invite_id: 'the invitation' }),
  'oauth_source.create': admin('an upstream sign-in provider was added (admin webhooks get it under the same name)', SOURCE),
  'oauth_source.update': admin('an upstream sign-in provider changed (admin webhooks get it under the same name)', {
    ...SOURCE,
    changed: 'the settings changed (a secret by name only)',
  }),
  'oauth_source.delete': admin('an upstream sign-in provider was removed (admin webhooks get it under the same name)', {
    ...SOURCE,
    social_accounts_unlinked: 'how many linked accounts were unlinked',
  }),
  'webhook.create': admin('a webhook was made (admin webhooks get it under the same name)', {
    ...WEBHOOK,
    url_host: 'the host it delivers to',
    events: 'the events it takes',
  }),
  'webhook.update': admin('a webhook changed (admin webhooks get it under the same name)', {
    ...WEBHOOK,
    url_host: 'the host it delivers to',
    events: 'the events it takes',
    changed: 'the settings changed (the secret by name only)',
  }),
  'webhook.delete': admin('a webhook was deleted (admin webhooks get it under the same name)', WEBHOOK),
  'team.create': admin('a team was made', { ...TEAM, parent_id: 'the parent team, if any', owner_id: 'its first owner' }),
  'team.update': admin('a team changed', { ...TEAM, changed: 'what changed' }),
  'team.delete': admin('a team was deleted (by its owner or a site administrator)', { ...TEAM, cascade_from: 'the team whose deletion took this one along' }),
  'team.member.invite': admin('a member was invited to a team', { ...TEAM, ...MEMBER, invitation_id: 'the invitation' }),
  'team.invitation.revoke': admin('a team invitation was revoked', { ...TEAM, user_id: 'the invited account', invitation_id: 'the invitation' }),
  'team.invitation.decline': admin('a team invitation was declined', { ...TEAM, user_id: 'the invited account', invitation_id: 'the invitation' }),
  'team.member.add': admin('a member joined a team', { ...TEAM, ...MEMBER, invitation_id: 'the invitation accepted', invited_by: 'who invited' }),
  'team.member.update': admin("a member's role or groups changed", { ...TEAM, ...MEMBER, from_role: 'the role before' }),
  'team.member.remove': admin('a member left or was removed from a team', { ...TEAM, user_id: 'the member', role: 'the role they had' }),
  'team.group.add': admin('a team group was made', { ...TEAM, group: 'the group' }),
  'team.group.remove': admin('a team group was removed', { ...TEAM, group: 'the group' }),
  // Keyflow's own.
  'audit.retention': admin('records older than AUDIT_RETENTION_DAYS were deleted; the chain now starts at a new checkpoint', {
    deleted_batches: 'how many sealed batches were deleted',
    first_batch: 'the first batch kept',
  }),
} as const satisfies Record<string, AuditEventSpec>;

export type AuditEventName = keyof typeof AUDIT_CATALOGUE;
export const AUDIT_EVENT_NAMES = Object.keys(AUDIT_CATALOGUE) as AuditEventName[];

export function isAuditEvent(name: string): name is AuditEventName {
  return Object.hasOwn(AUDIT_CATALOGUE, name);
}

/**
 * The catalogue's events an event filter names: one name, or a prefix ending
 * in `.*` (`login.*` is `login` and `login.failed`; `*` is all). Unknown: [].
 */
export function auditEventsMatching(filter: string): AuditEventName[] {
  if (filter === '*') return [...AUDIT_EVENT_NAMES];
  if (filter.endsWith('.*')) {
    const stem = filter.slice(0, -2);
    return AUDIT_EVENT_NAMES.filter((n) => n === stem || n.startsWith(`${stem}.`));
  }
  return isAuditEvent(filter) ? [filter] : [];
}

export type AuditOutcome = 'success' | 'failure';

/** Who caused it: a signed-in user (or a user's token), the operator CLI, a client for itself, Keyflow itself, or someone not signed in. */
export interface AuditActor {
  type: 'user' | 'operator' | 'client' | 'system' | 'anonymous';
  userId?: string;
  clientId?: string;
}

/** What it happened to. */
export interface AuditSubject {
  userId?: string;
  clientId?: string;
  teamId?: string;
  keyId?: string;
}

/** The request that caused it, when one did (lib/runtime/request-context.ts fills it in). */
export interface AuditRequest {
  ip?: string;
  userAgent?: string;
  requestId?: string;
}

/**
 * One audit record as the recorder writes it. `id` orders records by time
 * across processes (milliseconds first); `data` holds only what the
 * catalogue lists for the event.
 */
export interface AuditEntry extends AuditRequest {
  id: string;
  time: Date;
  event: AuditEventName;
  stream: AuditStream;
  outcome: AuditOutcome;
  actor: AuditActor;
  subject: AuditSubject;
  data: Record<string, unknown>;
}

/** A sealed record: an entry with its place in the chain (batch `seq`, index `idx` in it). */
export interface SealedAuditEntry extends AuditEntry {
  seq: number;
  idx: number;
}
