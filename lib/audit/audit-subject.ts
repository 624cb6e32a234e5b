// What an event happened to, read from its data's usual keys: for events whose
// source names its subject only in the data (admin events recorded by the
// event pipeline).
import type { AuditSubject } from '../model/audit-events.js';

export function subjectOfData(data: Record<string, unknown>): AuditSubject {
  const text = (key: string) => (typeof data[key] === 'string' ? data[key] : undefined);
  const userId = text('user_id') ?? text('owner_user_id');
  const clientId = text('client_id') ?? text('app_id');
  const teamId = text('team_id');
  const keyId = text('kid');
  return { ...(userId ? { userId } : {}), ...(clientId ? { clientId } : {}), ...(teamId ? { teamId } : {}), ...(keyId ? { keyId } : {}) };
}
