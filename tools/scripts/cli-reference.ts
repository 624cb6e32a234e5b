// `npm run docs:cli`: writes docs/cli-reference.md from the command
// definitions in cli/commands.ts; --check: see generated-doc.ts
// (test/unit/cli-reference.test.ts makes the same check in `npm test`).
import { CLI_REFERENCE_FILE, renderCliReference } from '../../cli/reference.js';
import { writeGeneratedDoc } from './generated-doc.js';

writeGeneratedDoc(CLI_REFERENCE_FILE, renderCliReference(), 'docs:cli');
