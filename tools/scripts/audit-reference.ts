// `npm run docs:audit`: writes docs/audit-events.md from the audit catalogue
// (lib/model/audit-events.ts); --check: see generated-doc.ts
// (test/unit/audit/audit-reference.test.ts makes the same check in `npm test`).
import { AUDIT_REFERENCE_FILE, renderAuditReference } from '../../lib/audit/catalogue-reference.js';
import { writeGeneratedDoc } from './generated-doc.js';

writeGeneratedDoc(AUDIT_REFERENCE_FILE, renderAuditReference(), 'docs:audit');
