// The key of a worker's kept workflow bundle: the same for the same build, and
// another as soon as anything the bundle is made of changes (a compiled
// module rewritten, other workflow interceptors), so a worker never runs the
// workflows of an older build.
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../../lib/runtime/paths.js';
import { bundleKey } from '../../../worker/workflow-bundle.js';

describe('the workflow bundle key', () => {
  it('is stable for one build, and changes with the interceptors and with any compiled input rewritten', () => {
    const key = bundleKey([]);
    expect(bundleKey([])).toBe(key);
    expect(bundleKey(['/some/interceptors.js'])).not.toBe(key);
    // A module the workflows import, as a rebuild leaves it: rewritten, so with a new modification time.
    const input = path.join(PROJECT_ROOT, 'dist/lib/model/refresh-family.js');
    const { atime, mtime } = fs.statSync(input);
    try {
      fs.utimesSync(input, atime, new Date(mtime.getTime() + 1_000));
      expect(bundleKey([])).not.toBe(key);
    } finally {
      fs.utimesSync(input, atime, mtime);
    }
    expect(bundleKey([])).toBe(key);
  });
});
