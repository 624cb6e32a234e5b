// The one way a `npm run docs:*` script writes its generated reference: the
// file rewritten only when it changed; with --check, nothing written and exit
// 1 when the checked-in file differs (each has a unit test making the same
// check in `npm test`).
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';

/** `relativeFile` (under the project root) made to hold `text`; `script` is the npm script that writes it (named in the hint). */
export function writeGeneratedDoc(relativeFile: string, text: string, script: string): void {
  const file = path.join(PROJECT_ROOT, relativeFile);
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (process.argv.includes('--check')) {
    if (current !== text) {
      console.error(`${relativeFile} is out of date: run npm run ${script}`);
      process.exit(1);
    }
  } else if (current !== text) {
    fs.writeFileSync(file, text);
    process.stdout.write(`wrote ${relativeFile}\n`);
  } else {
    process.stdout.write(`${relativeFile} is up to date\n`);
  }
}
