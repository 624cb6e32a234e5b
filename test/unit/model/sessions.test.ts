// Browser sessions: their lifetimes, and when a signed-in session has gone
// idle for too long and is over.
import { ANONYMOUS_SESSION_TTL_MS, isIdle, lastSeen, SESSION_TTL_MS } from '../../../lib/model/sessions.js';

const T0 = new Date('2025-01-01T00:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const HOUR = 3600_000;

describe('session lifetimes', () => {
  it('are 14 days from sign-in, one hour before it', () => {
    expect(SESSION_TTL_MS).toBe(14 * 24 * HOUR);
    expect(ANONYMOUS_SESSION_TTL_MS).toBe(HOUR);
  });
});

describe('lastSeen', () => {
  it('is the last request, or the creation of a session stored before lastSeenAt', () => {
    expect(lastSeen({ createdAt: T0, lastSeenAt: at(5_000) })).toBe(T0.getTime() + 5_000);
    expect(lastSeen({ createdAt: T0, lastSeenAt: undefined as unknown as Date })).toBe(T0.getTime());
  });
});

describe('isIdle', () => {
  const session = { userId: 'u1', createdAt: T0, lastSeenAt: at(HOUR) };

  it('ends a signed-in session unused for longer than the idle time, not one used within it', () => {
    expect(isIdle(session, HOUR, T0.getTime() + 2 * HOUR)).toBe(false);
    expect(isIdle(session, HOUR, T0.getTime() + 2 * HOUR + 1)).toBe(true);
  });

  it('never ends an anonymous session for idleness (it has its own short lifetime)', () => {
    expect(isIdle({ ...session, userId: null }, HOUR, T0.getTime() + 100 * HOUR)).toBe(false);
  });

  it('counts from the creation of a session stored before lastSeenAt', () => {
    const legacy = { userId: 'u1', createdAt: T0, lastSeenAt: undefined as unknown as Date };
    expect(isIdle(legacy, HOUR, T0.getTime() + HOUR + 1)).toBe(true);
  });
});
