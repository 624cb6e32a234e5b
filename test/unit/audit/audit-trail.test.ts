// The recorder's group commit: a record made the moment the previous one
// resolved (a caller recording two events in a row) is written too, not left
// in the queue until some later record comes.
import { createAuditTrail } from '../../../lib/audit/audit-trail.js';
import { createLogger } from '../../../lib/runtime/log.js';
import type { Store } from '../../../lib/store/db.js';

it('writes a record made right after the previous one resolved', async () => {
  const written: string[] = [];
  const store = {
    auditPending: { insertMany: async (docs: { event: string }[]) => void written.push(...docs.map((d) => d.event)) },
  } as unknown as Store;
  const audit = createAuditTrail({ store, log: createLogger('error') });
  const actor = { type: 'system' } as const;
  await audit.record('totp.enabled', { actor });
  await audit.record('backup_codes.generated', { actor, data: { count: 10 } });
  await audit.record('totp.disabled', { actor });
  expect(written).toEqual(['totp.enabled', 'backup_codes.generated', 'totp.disabled']);
});
