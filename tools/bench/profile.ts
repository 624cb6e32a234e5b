// `npm run bench -- profile <file.cpuprofile> [--top 25]`: where a process
// spent its CPU, from a V8 CPU profile (node --cpu-prof): the functions with
// the most self time, and self time summed by package (node_modules package,
// Keyflow folder, Node.js internals, V8's own entries such as GC).
import fs from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The package a script belongs to: `@scope/name` or `name` under node_modules, `keyflow <folder>`, `node`, or V8's `(program)`. */
export function packageOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (inModules) return inModules[1]!;
  if (url.startsWith('node:')) return 'node';
  const own = /\/dist\/((?:lib\/)?[^/]+)\//.exec(url);
  return own ? `keyflow ${own[1]}` : url;
}

/** Self time in ms per profile node: each sample lasts until the next one. */
function selfTimes(profile: CpuProfile): Map<number, number> {
  const self = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const us = profile.timeDeltas[i + 1] ?? 0;
    self.set(profile.samples[i]!, (self.get(profile.samples[i]!) ?? 0) + us / 1000);
  }
  return self;
}

export function profileSummary(profile: CpuProfile, top: number): string {
  const self = selfTimes(profile);
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map<string, { ms: number; pkg: string }>();
  const byPackage = new Map<string, number>();
  for (const node of profile.nodes) {
    const ms = self.get(node.id) ?? 0;
    if (ms === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const pkg = packageOf(url, functionName);
    const file = url ? `${url.replace(/^file:\/\/.*\/(node_modules|dist)\//, '$1/')}:${lineNumber + 1}` : '';
    const key = `${functionName || '(anonymous)'} ${file}`.trim();
    const entry = byFunction.get(key) ?? { ms: 0, pkg };
    entry.ms += ms;
    byFunction.set(key, entry);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + ms);
  }
  const pct = (ms: number) => `${((ms / total) * 100).toFixed(1).padStart(5)}%`;
  const lines = [`total sampled ${Math.round(total)} ms`, '', `top ${top} functions by self time`];
  for (const [key, { ms, pkg }] of [...byFunction].sort((a, b) => b[1].ms - a[1].ms).slice(0, top)) {
    lines.push(`${String(Math.round(ms)).padStart(7)} ms ${pct(ms)}  ${pkg.padEnd(24)} ${key}`);
  }
  lines.push('', 'self time by package');
  for (const [pkg, ms] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    lines.push(`${String(Math.round(ms)).padStart(7)} ms ${pct(ms)}  ${pkg}`);
  }
  return lines.join('\n') + '\n';
}

export async function profileBench(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { top: { type: 'string', default: '25' } } });
  const file = positionals[0];
  if (!file) throw new Error('usage: npm run bench -- profile <file.cpuprofile> [--top 25]');
  const profile = JSON.parse(await fs.promises.readFile(file, 'utf8')) as CpuProfile;
  process.stdout.write(profileSummary(profile, Number(values.top)));
}
