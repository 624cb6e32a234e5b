#!/usr/bin/env node
// The checks `npm test` makes before Jest, run side by side: the lint
// (eslint), the formatting (prettier --check) and the build (tsc, which is
// also the type check). Each is single-threaded and they share nothing, so on
// two cores this saves most of the shorter ones' time. Each one's output is
// printed whole when it ends, so the three never interleave; the exit status
// is non-zero if any failed.
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

const results = await Promise.all(CHECKS.map(run));
process.exit(results.every(Boolean) ? 0 : 1);
