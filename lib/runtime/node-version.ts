// Keyflow runs on the Node.js release package.json's `engines` names (24 LTS):
// its native ML-DSA and its security fixes are what the rest assumes. Every
// process entry point refuses to start on an older runtime, in one line.
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './paths.js';

/** The lowest major version `engines.node` admits (">=24 <25" → 24). */
export function requiredNodeMajor(): number {
  const pkg = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { engines?: { node?: string } };
  return Number(/>=\s*(\d+)/.exec(pkg.engines?.node ?? '')?.[1] ?? 0);
}

/** Exits with one line on stderr (code 1) when this runtime is older than `engines` allows. */
export function exitOnUnsupportedNode(processName: string, version = process.versions.node): void {
  const major = Number(version.split('.')[0]);
  const required = requiredNodeMajor();
  if (major >= required) return;
  process.stderr.write(
    `${processName}: Keyflow needs Node.js ${required} or newer; this is ${version} (${process.execPath}). Start it with npm start / npm run …, which use the pinned Node.js.\n`,
  );
  process.exit(1);
}
