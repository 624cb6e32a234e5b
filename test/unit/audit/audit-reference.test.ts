// The audit catalogue is defined once (lib/model/audit-events.ts): the
// checked-in docs/audit-events.md must be what `npm run docs:audit` writes now.
import fs from 'node:fs';
import path from 'node:path';
import { AUDIT_REFERENCE_FILE, renderAuditReference } from '../../../lib/audit/catalogue-reference.js';
import { PROJECT_ROOT } from '../../../lib/runtime/paths.js';

it(`${AUDIT_REFERENCE_FILE} is what npm run docs:audit writes`, () => {
  const checkedIn = fs.readFileSync(path.join(PROJECT_ROOT, AUDIT_REFERENCE_FILE), 'utf8').split('\n');
  const generated = renderAuditReference().split('\n');
  const line = checkedIn.findIndex((l, i) => l !== generated[i]);
  expect({
    file: AUDIT_REFERENCE_FILE,
    firstDifference: line === -1 && checkedIn.length === generated.length ? null : line + 1,
    hint: 'npm run docs:audit',
  }).toEqual({
    file: AUDIT_REFERENCE_FILE,
    firstDifference: null,
    hint: 'npm run docs:audit',
  });
});
