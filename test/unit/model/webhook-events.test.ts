// Webhook events: what a user's and an admin's webhooks may subscribe to,
// which events a subscription takes, and how an admin event names who caused it.
import {
  actorPayload,
  ADMIN_EVENTS,
  AUDIT_EVENTS,
  checkSubscription,
  isAdminEvent,
  isUserEvent,
  subscribes,
  TEST_EVENT,
  USER_EVENTS,
} from '../../../lib/model/webhook-events.js';

describe('the event lists', () => {
  it('keep user, admin and audit-only events apart, and the test ping out of all of them', () => {
    const all = [...USER_EVENTS, ...ADMIN_EVENTS, ...AUDIT_EVENTS];
    expect(new Set(all).size).toBe(all.length);
    expect(all).not.toContain(TEST_EVENT);
    for (const e of USER_EVENTS) expect([e, isUserEvent(e), isAdminEvent(e)]).toEqual([e, true, false]);
    for (const e of ADMIN_EVENTS) expect([e, isUserEvent(e), isAdminEvent(e)]).toEqual([e, false, true]);
    for (const e of [...AUDIT_EVENTS, TEST_EVENT, '*']) expect([e, isUserEvent(e) || isAdminEvent(e)]).toEqual([e, false]);
  });
});

describe('checkSubscription', () => {
  it('takes known events of the webhook’s scope, or *, without repeats', () => {
    expect(checkSubscription('user', ['app.created', 'profile.updated', 'app.created'])).toEqual({ ok: true, events: ['app.created', 'profile.updated'] });
    expect(checkSubscription('admin', ['*'])).toEqual({ ok: true, events: ['*'] });
    expect(checkSubscription('admin', ['invite.create', '*'])).toEqual({ ok: true, events: ['invite.create', '*'] });
  });

  it('refuses an empty subscription', () => {
    expect(checkSubscription('user', [])).toEqual({ ok: false, description: 'events must name at least one event, or "*"' });
  });

  it('refuses events of the other scope, audit-only events and the test ping, naming each and the allowed ones', () => {
    expect(checkSubscription('user', ['app.created', 'admin.user.delete'])).toEqual({
      ok: false,
      description: `unknown user event: admin.user.delete (allowed: *, ${USER_EVENTS.join(', ')})`,
    });
    expect(checkSubscription('admin', ['profile.updated', 'team.create', TEST_EVENT])).toEqual({
      ok: false,
      description: `unknown admin events: profile.updated, team.create, webhook.test (allowed: *, ${ADMIN_EVENTS.join(', ')})`,
    });
    expect(checkSubscription('user', ['APP.CREATED']).ok).toBe(false);
  });
});

describe('subscribes', () => {
  it('takes the events named, or every event with *', () => {
    expect(subscribes(['app.created'], 'app.created')).toBe(true);
    expect(subscribes(['app.created'], 'app.deleted')).toBe(false);
    expect(subscribes(['*'], 'domain.verified')).toBe(true);
    expect(subscribes([], 'app.created')).toBe(false);
  });
});

describe('actorPayload', () => {
  it('names the actor in snake_case with only what is known', () => {
    expect(actorPayload({ type: 'user', userId: 'u1', clientId: 'rp' })).toEqual({ type: 'user', user_id: 'u1', client_id: 'rp' });
    expect(actorPayload({ type: 'user', userId: 'u1' })).toEqual({ type: 'user', user_id: 'u1' });
    expect(actorPayload({ type: 'operator' })).toEqual({ type: 'operator' });
    expect(actorPayload({ type: 'system', userId: '' })).toEqual({ type: 'system' });
  });
});
