#!/usr/bin/env node
// Runs one of Keyflow's compiled entry points on the pinned Node 24, building
// first only when a source changed since the last build.
//
//   node tools/scripts/run.mjs <entry under dist/, e.g. api/main.js> [args...]
//   node tools/scripts/run.mjs --build     (build if stale, run nothing)
//
// Plain JavaScript on purpose, like bootstrap.mjs: it may itself run on an
// older `node`. On a fresh clone the shell running an npm script looked `node`
// up before the bootstrap installed the pinned one (and remembers that
// lookup), so every later `node` in the same script would be the machine's.
// This script never relies on that lookup: it starts the pinned binary by
// path and refuses a binary below package.json's `engines`. A build is a step
// (steps.mjs): said before it starts, with progress while it runs.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, step } from './steps.mjs';
import { writeIntegrationSuites } from './integration-suites.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const NODE = path.join(root, 'node_modules/node/bin/node');
const STAMP = path.join(root, 'dist/.build-stamp');
/** Folders whose TypeScript is compiled into dist/ (everything tsconfig includes lives under these). */
const SKIP = new Set(['node_modules', 'dist', '.tools', '.git', 'data', 'coverage']);

function fail(message) {
  console.error(`keyflow: ${message}`);
  process.exit(1);
}

/** The lowest major version `engines.node` admits (e.g. ">=24 <25" → 24). */
const requiredMajor = Number(/>=\s*(\d+)/.exec(pkg.engines?.node ?? '')?.[1] ?? 0);

function checkNode() {
  if (!fs.existsSync(NODE)) fail(`the pinned Node.js is missing (${path.relative(root, NODE)}); run \`npm ci\` or \`node tools/scripts/bootstrap.mjs deps\``);
  const version = spawnSync(NODE, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const major = Number(/^v(\d+)/.exec(version)?.[1] ?? 0);
  if (major < requiredMajor) fail(`Keyflow needs Node.js ${pkg.engines.node}; ${NODE} is ${version || 'unusable'}`);
}

/** The newest modification time of the inputs of `tsc -p .`. */
function newestSource(dir = root) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    // A folder's own time changes when a file in it is added, removed or renamed.
    if (entry.isDirectory()) newest = Math.max(newest, fs.statSync(full).mtimeMs, newestSource(full));
    else if (/\.(ts|json)$/.test(entry.name)) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

async function buildIfStale() {
  const built = fs.existsSync(STAMP) ? fs.statSync(STAMP).mtimeMs : 0;
  if (built >= newestSource()) return;
  const started = Date.now();
  // A clean output folder: a moved or deleted source must not leave its old
  // compiled file behind (jest would still find a stale test there).
  fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
  const tsc = () => runCommand(NODE, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', '.'], { cwd: root });
  const why = built ? 'as sources changed since the last build' : 'as there is no build yet';
  try {
    await step('type-checking and compiling into dist/ (tsc -p .)', '20 s–1 min on 2 cores', tsc, { why });
  } catch {
    fail('the TypeScript build failed (see above)');
  }
  const integration = path.join(root, 'dist/test/integration');
  if (fs.existsSync(integration)) writeIntegrationSuites(integration);
  // Touched only after a successful build: a failed one is retried next time.
  fs.mkdirSync(path.dirname(STAMP), { recursive: true });
  fs.writeFileSync(STAMP, `${new Date(started).toISOString()}\n`);
  fs.utimesSync(STAMP, started / 1000, started / 1000);
}

const [entry, ...args] = process.argv.slice(2);
if (!entry) fail('usage: node tools/scripts/run.mjs <entry under dist/> [args...] | --build');
checkNode();
await buildIfStale();
if (entry === '--build') process.exit(0);

const child = spawn(NODE, ['--enable-source-maps', '--disable-warning=ExperimentalWarning', path.join(root, 'dist', entry), ...args], { stdio: 'inherit' });
// The child is the program: signals sent to this process go to it, and its exit is ours.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1 }[signal] ?? 1) : 1)));
