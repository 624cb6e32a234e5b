// `npm run docs:cli`: writes docs/cli-reference.md from the command
// definitions in cli/commands.ts. With --check it writes nothing and exits
// 1 when the checked-in file differs (test/unit/cli-reference.test.ts makes
// the same check in `npm test`).
import fs from 'node:fs';
import path from 'node:path';
import { CLI_REFERENCE_FILE, renderCliReference } from '../../cli/reference.js';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';

const file = path.join(PROJECT_ROOT, CLI_REFERENCE_FILE);
const text = renderCliReference();
const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';

if (process.argv.includes('--check')) {
  if (current !== text) {
    console.error(`${CLI_REFERENCE_FILE} is out of date: run npm run docs:cli`);
    process.exit(1);
  }
} else if (current !== text) {
  fs.writeFileSync(file, text);
  process.stdout.write(`wrote ${CLI_REFERENCE_FILE}\n`);
} else {
  process.stdout.write(`${CLI_REFERENCE_FILE} is up to date\n`);
}
