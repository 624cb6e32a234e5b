// Webhook events: the two event lists, what a webhook may subscribe to, who
// causes an event. Pure: no I/O. (The payload a receiver gets and its
// signature: lib/webhooks/signing.ts.)

/** Events of a user's own webhooks. */
export const USER_EVENTS = ['app.created', 'app.updated', 'app.deleted', 'domain.added', 'domain.verified', 'domain.deleted', 'profile.updated'] as const;

/** Events of admin webhooks: the audit log's events. */
export const ADMIN_EVENTS = [
  'admin.config.update',
  'admin.user.update',
  'admin.user.delete',
  'admin.app.update',
  'admin.team.delete',
  'invite.create',
  'invite.revoke',
  'oauth_source.create',
  'oauth_source.update',
  'oauth_source.delete',
  'webhook.create',
  'webhook.update',
  'webhook.delete',
] as const;

/**
 * Events only the audit log records (no webhook subscribes to them): team
 * changes, each grant of a team or site scope, apart from the consent, and
 * tokens a client got for itself (client_credentials).
 */
export const AUDIT_EVENTS = [
  'team.create',
  'team.update',
  'team.delete',
  'team.member.invite',
  'team.invitation.revoke',
  'team.invitation.decline',
  'team.member.add',
  'team.member.update',
  'team.member.remove',
  'team.group.add',
  'team.group.remove',
  'team.scope.grant',
  'site.scope.grant',
  'token.issued',
] as const;
export type AuditEvent = (typeof AUDIT_EVENTS)[number];

/** The test ping: sent on request to one webhook, whatever it subscribes to. */
export const TEST_EVENT = 'webhook.test';

export type UserEvent = (typeof USER_EVENTS)[number];
export type AdminEvent = (typeof ADMIN_EVENTS)[number];
export type WebhookEventName = UserEvent | AdminEvent | typeof TEST_EVENT;
export type WebhookScope = 'user' | 'admin';

export const WILDCARD = '*';

/** Who caused an event: a user (through a session or a token), the operator CLI, a client acting for itself, or Keyflow itself. */
export interface EventActor {
  type: 'user' | 'operator' | 'client' | 'system';
  userId?: string;
  /** The OAuth client whose token made the request, if any. */
  clientId?: string;
}

/** The actor as an admin event's payload carries it (`data.actor`): snake_case, only what is known. */
export function actorPayload(actor: EventActor): Record<string, string> {
  return {
    type: actor.type,
    ...(actor.userId ? { user_id: actor.userId } : {}),
    ...(actor.clientId ? { client_id: actor.clientId } : {}),
  };
}

const EVENTS_OF: Record<WebhookScope, readonly string[]> = { user: USER_EVENTS, admin: ADMIN_EVENTS };

export function isUserEvent(name: string): name is UserEvent {
  return (USER_EVENTS as readonly string[]).includes(name);
}

export function isAdminEvent(name: string): name is AdminEvent {
  return (ADMIN_EVENTS as readonly string[]).includes(name);
}

/**
 * A webhook's subscription, checked against its scope's list: `*` or known
 * event names, at least one, no duplicates kept. Returns the problem otherwise.
 */
export function checkSubscription(scope: WebhookScope, events: string[]): { ok: true; events: string[] } | { ok: false; description: string } {
  if (events.length === 0) return { ok: false, description: 'events must name at least one event, or "*"' };
  const unknown = events.filter((e) => e !== WILDCARD && !EVENTS_OF[scope].includes(e));
  if (unknown.length)
    return {
      ok: false,
      description: `unknown ${scope} event${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (allowed: *, ${EVENTS_OF[scope].join(', ')})`,
    };
  return { ok: true, events: [...new Set(events)] };
}

/** Does a subscription take this event? */
export function subscribes(events: readonly string[], name: string): boolean {
  return events.includes(WILDCARD) || events.includes(name);
}

/** An event of the pipeline: in the outbox until its deliveries are started; admin events also in the audit log. */
export interface WebhookEventDoc {
  _id: string; // event id (UUID)
  name: WebhookEventName;
  scope: WebhookScope;
  /** User events: the user whose webhooks receive it. */
  userId: string | null;
  /** Unix seconds: the payload's `timestamp`. */
  timestamp: number;
  data: Record<string, unknown>;
  actor: EventActor;
  createdAt: Date;
}

/** An audit log record: an admin event (as its webhooks get it) or an audit-only event (scope `audit`). */
export type AuditRecord = Omit<WebhookEventDoc, 'userId' | 'name' | 'scope'> & {
  name: WebhookEventName | AuditEvent;
  scope: WebhookScope | 'audit';
  userId: string | null;
};
