#!/usr/bin/env node
// The checks `npm test` makes before Jest, run side by side: the lint
// (eslint), the formatting (prettier --check) and the build (tsc, which is
// also the type check). Each is single-threaded and they share nothing, so on
// two cores this saves most of the shorter ones' time. Each one's output is
// printed whole when it ends, so the three never interleave; the exit status
// is non-zero if any failed. With `--jest [jest arguments]` (npm test), Jest
// starts as soon as the build is done, beside the lint and the formatting
// check still running: the tests need the build alone, and the lint's last
// half-minute would otherwise leave a core idle.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const NODE = path.join(root, 'node_modules/node/bin/node');
const bin = (file) => path.join(root, 'node_modules', file);

const CHECKS = [
  { name: 'eslint .', args: [bin('eslint/bin/eslint.js'), '.'] },
  { name: 'prettier --check .', args: [bin('prettier/bin/prettier.cjs'), '--check', '.'] },
  { name: 'build', args: [path.join(root, 'tools/scripts/run.mjs'), '--build'] },
];

function run({ name, args }) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(NODE, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    child.on('error', (error) => out.push(Buffer.from(String(error))));
    child.on('close', (code) => {
      const text = Buffer.concat(out).toString().trimEnd();
      const seconds = Math.round((Date.now() - started) / 1000);
      process.stdout.write(`keyflow: ${name}: ${code === 0 ? 'passed' : 'FAILED'} in ${seconds} s${text ? `\n${text}` : ''}\n`);
      resolve(code === 0);
    });
  });
}

const jestAt = process.argv.indexOf('--jest');
const jestArgs = jestAt >= 0 ? process.argv.slice(jestAt + 1) : null;

/** Jest on the pinned Node.js, its output straight to the terminal; true when every test passed. */
function jest(args) {
  return new Promise((resolve) => {
    const env = { ...process.env, NODE_OPTIONS: '--experimental-vm-modules --enable-source-maps --disable-warning=ExperimentalWarning' };
    const child = spawn(NODE, [bin('jest/bin/jest.js'), ...args], { cwd: root, stdio: 'inherit', env });
    child.on('error', (error) => {
      process.stderr.write(`keyflow: jest could not start: ${error.message}\n`);
      resolve(false);
    });
    child.on('close', (code) => resolve(code === 0));
  });
}

const results = await Promise.all(
  CHECKS.map(async (check) => {
    const passed = await run(check);
    return check.name === 'build' && jestArgs ? passed && (await jest(jestArgs)) : passed;
  }),
);
process.exit(results.every(Boolean) ? 0 : 1);
