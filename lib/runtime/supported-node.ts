// Imported first by every process entry point (api, worker, launcher, CLI):
// module imports run in order, so the version check happens before any other
// module of Keyflow is loaded on a runtime that may not support it.
import path from 'node:path';
import { exitOnUnsupportedNode } from './node-version.js';

const NAMES: Record<string, string> = {
  'api/main.js': 'api',
  'worker/main.js': 'worker',
  'tools/scripts/launcher.js': 'keyflow',
  'cli/keyflow.js': 'keyflow',
};
const entry = path.relative(path.join(import.meta.dirname, '..'), process.argv[1] ?? '');
exitOnUnsupportedNode(NAMES[entry] ?? 'keyflow');
