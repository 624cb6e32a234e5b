// `npm run docs:config`: writes docs/configuration-reference.md from the
// variables declared in lib/config/env.ts; --check: see generated-doc.ts
// (test/unit/configuration-reference.test.ts makes the same check in `npm test`).
import { REFERENCE_FILE, renderConfigurationReference } from '../../lib/config/reference.js';
import { writeGeneratedDoc } from './generated-doc.js';

writeGeneratedDoc(REFERENCE_FILE, renderConfigurationReference(), 'docs:config');
