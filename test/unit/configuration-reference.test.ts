// The configuration reference is generated from the variables' declarations
// in lib/config/env.ts: the checked-in docs/configuration-reference.md must be
// what `npm run docs:config` writes now (this is how CI notices a stale one),
// and every variable Keyflow reads from the environment has a description.
import fs from 'node:fs';
import path from 'node:path';
import { ENV_VARIABLE_NAMES } from '../../lib/config/env.js';
import { REFERENCE_FILE, renderConfigurationReference, variableFacts } from '../../lib/config/reference.js';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';

/** Product code and the scripts that start it: where a variable read beside lib/config would be configuration too. */
const READERS = ['api', 'cli', 'worker', 'activities', 'workflows', 'lib', 'bin', 'tools/scripts'];
const ENV_READ = /process\.env(?:\.([A-Z][A-Z0-9_]*)|\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\])/g;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return /\.(ts|mjs|js)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

describe('the configuration reference', () => {
  it(`${REFERENCE_FILE} is what npm run docs:config writes`, () => {
    const checkedIn = fs.readFileSync(path.join(PROJECT_ROOT, REFERENCE_FILE), 'utf8');
    const generated = renderConfigurationReference();
    if (checkedIn === generated) return;
    const a = checkedIn.split('\n');
    const b = generated.split('\n');
    const line = a.findIndex((l, i) => l !== b[i]);
    throw new Error(
      `${REFERENCE_FILE} is out of date: run npm run docs:config\n` +
        `first difference at line ${(line === -1 ? a.length : line) + 1}:\n  checked in: ${a[line] ?? '(end of file)'}\n  generated:  ${b[line] ?? '(end of file)'}`,
    );
  });

  it('lists every variable the configuration reads, once, each with a description', () => {
    const listed = variableFacts().flatMap((g) => g.variables);
    expect(listed.map((v) => v.name).sort()).toEqual([...ENV_VARIABLE_NAMES].sort());
    expect(listed.filter((v) => !v.description?.trim()).map((v) => v.name)).toEqual([]);
  });

  it('documents every variable that product code or its scripts read from process.env themselves', () => {
    const documented = new Set(ENV_VARIABLE_NAMES);
    const undocumented: string[] = [];
    for (const file of READERS.flatMap((dir) => sources(path.join(PROJECT_ROOT, dir)))) {
      for (const m of fs.readFileSync(file, 'utf8').matchAll(ENV_READ)) {
        const name = m[1] ?? m[2]!;
        if (!documented.has(name)) undocumented.push(`${name} (${path.relative(PROJECT_ROOT, file)})`);
      }
    }
    expect(undocumented).toEqual([]);
  });
});
