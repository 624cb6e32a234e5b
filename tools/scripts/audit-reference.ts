// `npm run docs:audit`: writes docs/audit-events.md from the audit catalogue
// (lib/model/audit-events.ts). With --check it writes nothing and exits 1 when
// the checked-in file differs (test/unit/audit/audit-reference.test.ts makes the
// same check in `npm test`).
import fs from 'node:fs';
import path from 'node:path';
import { AUDIT_REFERENCE_FILE, renderAuditReference } from '../../lib/audit/catalogue-reference.js';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';

const file = path.join(PROJECT_ROOT, AUDIT_REFERENCE_FILE);
const text = renderAuditReference();
const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';

if (process.argv.includes('--check')) {
  if (current !== text) {
    console.error(`${AUDIT_REFERENCE_FILE} is out of date: run npm run docs:audit`);
    process.exit(1);
  }
} else if (current !== text) {
  fs.writeFileSync(file, text);
  process.stdout.write(`wrote ${AUDIT_REFERENCE_FILE}\n`);
} else {
  process.stdout.write(`${AUDIT_REFERENCE_FILE} is up to date\n`);
}
