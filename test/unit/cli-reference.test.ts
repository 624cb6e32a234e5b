// The CLI's commands are defined once (cli/commands.ts): the checked-in
// docs/cli-reference.md must be what `npm run docs:cli` writes now, the usage
// text lists every command, and every group the dispatch knows has commands.
import fs from 'node:fs';
import path from 'node:path';
import { CLI_REFERENCE_FILE, renderCliReference } from '../../cli/reference.js';
import { COMMANDS, commandHelp, optionsOf } from '../../cli/commands.js';
import { USAGE } from '../../cli/usage.js';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';

describe('the CLI reference', () => {
  it(`${CLI_REFERENCE_FILE} is what npm run docs:cli writes`, () => {
    const checkedIn = fs.readFileSync(path.join(PROJECT_ROOT, CLI_REFERENCE_FILE), 'utf8');
    const generated = renderCliReference();
    if (checkedIn === generated) return;
    const a = checkedIn.split('\n');
    const b = generated.split('\n');
    const line = a.findIndex((l, i) => l !== b[i]);
    throw new Error(
      `${CLI_REFERENCE_FILE} is out of date: run npm run docs:cli\n` +
        `first difference at line ${(line === -1 ? a.length : line) + 1}:\n  checked in: ${a[line] ?? '(end of file)'}\n  generated:  ${b[line] ?? '(end of file)'}`,
    );
  });

  it('the usage text and each command help name every command and option from the one definition', () => {
    const usage = USAGE.replace(/\s+/g, ' ');
    for (const c of COMMANDS) {
      expect([c.name, usage.includes(c.name)]).toEqual([c.name, true]);
      for (const option of Object.keys(optionsOf(c.name))) expect([c.name, option, commandHelp(c).includes(`${option}`)]).toEqual([c.name, option, true]);
    }
  });

  it('defines each command once', () => {
    const names = COMMANDS.map((c) => c.name);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });
});
