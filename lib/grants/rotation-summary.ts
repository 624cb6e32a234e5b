// `refresh.rotated`, summarised: refresh tokens rotate on every refresh, so
// instead of a record per rotation the api counts them in memory, per grant and
// clock minute (UTC, aligned), and records one `refresh.rotated` per grant and
// minute with `rotations`, the count. Nothing is written on the refresh path:
// a sweep records the minutes that are over (every SWEEP_MS), and `drain()`
// records everything counted so far (graceful shutdown, before the audit
// trail's flush; tests). A crash loses at most the counts of the current
// minute and the last sweep's. Counts are per api process: a grant refreshed
// through two processes in one minute has a record from each.
//
// The summary records carry no request (IP, user agent, request id): each
// stands for several requests. The sweep's timer is made when the summary is,
// outside any request, so no request's context leaks into them.
import type { AuditTrail } from '../audit/audit-trail.js';
import { currentTimeMs } from '../runtime/clock.js';
import { clientActor, grantSubject } from './token-audit.js';

const MINUTE_MS = 60_000;
/** How often the minutes that are over are recorded. */
const SWEEP_MS = 15_000;

export interface RotationSummary {
  /** Counts a rotation of the grant's refresh token (no I/O). */
  rotated(r: { grantId: string; clientId: string; userId: string }): void;
  /** Records every count so far (also the current minute's), and empties the counts. */
  drain(): void;
  /** Stops the sweep (the counts stay until drained). */
  stop(): void;
}

interface Count {
  grantId: string;
  clientId: string;
  userId: string;
  minute: number;
  rotations: number;
}

export function createRotationSummary(audit: Pick<AuditTrail, 'note'>): RotationSummary {
  /** By `<minute>:<grant id>`: a grant's counts of different minutes stay apart. */
  let counts = new Map<string, Count>();

  const write = (c: Count) =>
    audit.note('refresh.rotated', {
      actor: clientActor(c.clientId),
      subject: grantSubject(c.clientId, c.userId),
      data: { client_id: c.clientId, grant_id: c.grantId, rotations: c.rotations, minute: new Date(c.minute * MINUTE_MS).toISOString() },
    });

  function sweep(all: boolean): void {
    const now = Math.floor(currentTimeMs() / MINUTE_MS);
    const over = [...counts].filter(([, c]) => all || c.minute < now);
    if (over.length === 0) return;
    if (all) counts = new Map();
    else for (const [key] of over) counts.delete(key);
    for (const [, c] of over) write(c);
  }

  const timer = setInterval(() => sweep(false), SWEEP_MS);
  timer.unref();

  return {
    rotated({ grantId, clientId, userId }) {
      const minute = Math.floor(currentTimeMs() / MINUTE_MS);
      const key = `${minute}:${grantId}`;
      const c = counts.get(key);
      if (c) c.rotations++;
      else counts.set(key, { grantId, clientId, userId, minute, rotations: 1 });
    },
    drain: () => sweep(true),
    stop: () => clearInterval(timer),
  };
}
