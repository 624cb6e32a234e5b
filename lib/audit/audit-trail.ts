// The audit recorder: the one way any part of Keyflow (api, worker, CLI)
// records a security event. A record gets its time, id and the request that
// caused it (lib/runtime/request-context.ts) here, keeps only the data the
// catalogue lists for its event (lib/model/audit-events.ts), and is written to
// the inbox (`audit_pending`) with the others of the same moment: records
// arriving while a write is in flight go together in the next one (group
// commit), so a busy api makes one insert per group, not per record. The
// sealer (lib/audit/audit-sealing.ts) chains and indexes them within seconds.
//
//   audit.record(event, {...})  durable when it resolves: failures, revocations,
//                               admin changes (the request waits for its record)
//   audit.note(event, {...})    written with the next group, not awaited, after
//                               at most NOTE_WAIT_MS: the hot paths' successes
//                               (login, code, token issued); a crash within the
//                               moment loses only these
import { randomBytes } from 'node:crypto';
import { AUDIT_CATALOGUE, type AuditActor, type AuditEntry, type AuditEventName, type AuditOutcome, type AuditSubject } from '../model/audit-events.js';
import { currentDate } from '../runtime/clock.js';
import type { Logger } from '../runtime/log.js';
import { countAuditEvent } from '../runtime/metrics.js';
import { currentRequest } from '../runtime/request-context.js';
import { insertPending } from '../store/audit-records.js';
import type { Store } from '../store/db.js';

export interface AuditInput {
  /** Default: success. */
  outcome?: AuditOutcome;
  actor: AuditActor;
  subject?: AuditSubject;
  /** Only the keys the catalogue lists for the event are kept. */
  data?: Record<string, unknown>;
}

export interface AuditTrail {
  /** Records the event; resolves once it is durable (rejects if it could not be written). */
  record(event: AuditEventName, input: AuditInput): Promise<void>;
  /** Records the event with the next group without waiting; a failed write is logged. */
  note(event: AuditEventName, input: AuditInput): void;
  /** Resolves once everything recorded or noted so far is written (shutdown, CLI exit, tests). */
  flush(): Promise<void>;
}

/** A record id: the time in milliseconds (hex, fixed width) first, so ids sort by time across processes. */
export function newAuditId(at: Date): string {
  return `${at.getTime().toString(16).padStart(12, '0')}-${randomBytes(8).toString('hex')}`;
}

/** The record of `event` as written: the catalogue's data keys only, the request's context if any. */
export function auditEntry(event: AuditEventName, input: AuditInput, dropped: (key: string) => void = () => {}): AuditEntry {
  const spec = AUDIT_CATALOGUE[event];
  const allowed: Record<string, string> = spec.data ?? {};
  const data: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input.data ?? {})) {
    if (value === undefined) continue;
    if (Object.hasOwn(allowed, key)) data[key] = value;
    else dropped(key);
  }
  const time = currentDate();
  const request = currentRequest();
  return {
    id: newAuditId(time),
    time,
    event,
    stream: spec.stream,
    outcome: input.outcome ?? 'success',
    actor: input.actor,
    subject: input.subject ?? {},
    ...(request?.ip ? { ip: request.ip } : {}),
    ...(request?.userAgent ? { userAgent: request.userAgent } : {}),
    ...(request?.requestId ? { requestId: request.requestId } : {}),
    data,
  };
}

interface Waiting {
  entry: AuditEntry;
  done: (err?: Error) => void;
}

/**
 * How long a noted record (a hot path's success: a code, a token) may wait
 * for others to share its insert. A process killed in that time loses it.
 */
export const NOTE_WAIT_MS = 20;

/** A trail that records nothing (AUDIT_TRAIL=off: only to measure what recording costs). */
const UNRECORDED: AuditTrail = { record: async () => {}, note: () => {}, flush: async () => {} };

/**
 * Every event recorded or noted counts on /metrics (keyflow_audit_events_total
 * and the counters derived from it: sign-ins, refresh token reuse), here and
 * nowhere else, recording on or off.
 */
function counted(trail: AuditTrail): AuditTrail {
  return {
    record(event, input) {
      countAuditEvent(event, input.outcome ?? 'success');
      return trail.record(event, input);
    },
    note(event, input) {
      countAuditEvent(event, input.outcome ?? 'success');
      trail.note(event, input);
    },
    flush: () => trail.flush(),
  };
}

export function createAuditTrail(deps: { store: Store; log: Logger; recording?: boolean }): AuditTrail {
  if (deps.recording === false) {
    deps.log.warn('AUDIT_TRAIL=off: security events are not recorded (for measuring its cost only)');
    return counted(UNRECORDED);
  }
  return counted(recordingTrail(deps));
}

function recordingTrail(deps: { store: Store; log: Logger }): AuditTrail {
  let queue: Waiting[] = [];
  let writing: Promise<void> | null = null;

  async function writeGroups(): Promise<void> {
    while (queue.length) {
      const group = queue;
      queue = [];
      try {
        await insertPending(
          deps.store,
          group.map((w) => w.entry),
        );
        for (const w of group) w.done();
      } catch (err) {
        for (const w of group) w.done(err as Error);
      }
    }
  }

  /**
   * Starts a writer unless one runs. A record queued after the writer's last
   * look at the queue but before it ended (e.g. by a caller that awaited the
   * record before: its continuation runs first) is picked up when it ends.
   */
  function startWriting(): void {
    if (writing) return;
    writing = writeGroups().finally(() => {
      writing = null;
      if (queue.length) startWriting();
    });
  }

  /** A noted record waits up to NOTE_WAIT_MS for others (one insert for many, off the hot paths' MongoDB); a recorded one goes at once, with them. */
  let waiting: NodeJS.Timeout | null = null;
  const writeNow = () => {
    if (waiting) clearTimeout(waiting);
    waiting = null;
    startWriting();
  };

  function enqueue(event: AuditEventName, input: AuditInput, now: boolean): Promise<void> {
    const entry = auditEntry(event, input, (key) => deps.log.warn('audit data key not in the catalogue; dropped', { event, key }));
    const written = new Promise<void>((resolve, reject) => queue.push({ entry, done: (err) => (err ? reject(err) : resolve()) }));
    if (now) writeNow();
    else waiting ??= setTimeout(writeNow, NOTE_WAIT_MS);
    return written;
  }

  return {
    record: (event, input) => enqueue(event, input, true),
    note(event, input) {
      enqueue(event, input, false).catch((err: Error) => deps.log.error('audit record lost', { event, error: err.message }));
    },
    async flush() {
      if (waiting) writeNow();
      while (writing) await writing;
    },
  };
}
