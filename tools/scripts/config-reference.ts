// `npm run docs:config`: writes docs/configuration-reference.md from the
// variables declared in lib/config/env.ts. With --check it writes nothing and
// exits 1 when the checked-in file differs (the unit test
// test/unit/configuration-reference.test.ts makes the same check in `npm test`).
import fs from 'node:fs';
import path from 'node:path';
import { REFERENCE_FILE, renderConfigurationReference } from '../../lib/config/reference.js';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';

const file = path.join(PROJECT_ROOT, REFERENCE_FILE);
const text = renderConfigurationReference();
const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';

if (process.argv.includes('--check')) {
  if (current !== text) {
    console.error(`${REFERENCE_FILE} is out of date: run npm run docs:config`);
    process.exit(1);
  }
} else if (current !== text) {
  fs.writeFileSync(file, text);
  process.stdout.write(`wrote ${REFERENCE_FILE}\n`);
} else {
  process.stdout.write(`${REFERENCE_FILE} is up to date\n`);
}
