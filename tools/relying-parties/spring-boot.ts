// The Spring Boot recipe (tools/relying-parties/spring-boot) for rp-check:
// built with Maven for each Spring Boot version (again only when its sources
// changed), and started on a free port against a Keyflow.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { spawnManaged } from '../embedded/process.js';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';
import { waitUntilUp } from './keyflow-instance.js';

/** The Spring Boot versions checked: the last of 3.5 and of 4.0 that Maven Central serves whole. */
export const SPRING_BOOT_VERSIONS = ['3.5.7', '4.0.7'] as const;
const RECIPE = path.join(PROJECT_ROOT, 'tools', 'relying-parties', 'spring-boot');

function sourcesHash(): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name === 'target') continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else hash.update(full).update(fs.readFileSync(full));
    }
  };
  walk(RECIPE);
  return hash.digest('hex');
}

/** The recipe's executable jar for `version`, built into .tools/rp-spring/boot-<version>. */
export function springBootJar(version: string, say: (line: string) => void): string {
  const dir = path.join(PROJECT_ROOT, '.tools', 'rp-spring', `boot-${version}`);
  const jar = path.join(dir, 'spring-boot-rp.jar');
  const stamp = path.join(dir, 'sources.sha256');
  const hash = sourcesHash();
  if (fs.existsSync(jar) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === hash) return jar;
  say(`building the Spring Boot ${version} recipe with Maven (the first build downloads its dependencies)`);
  const built = spawnSync('mvn', ['-q', '-B', `-Dspring-boot.version=${version}`, `-Dbuild.dir=${dir}`, 'package', '-DskipTests'], {
    cwd: RECIPE,
    stdio: 'inherit',
  });
  if (built.status !== 0 || !fs.existsSync(jar)) throw new Error(`the Spring Boot ${version} recipe did not build`);
  fs.writeFileSync(stamp, hash);
  return jar;
}

export interface RunningSpringApp {
  url: string;
  stop: () => Promise<void>;
}

export async function startSpringApp(jar: string, port: number, env: Record<string, string>): Promise<RunningSpringApp> {
  const log = fs.createWriteStream(path.join(PROJECT_ROOT, 'data', `rp-check-${path.basename(path.dirname(jar))}.log`));
  const proc = spawnManaged('spring', 'java', ['-jar', jar], { env: { ...process.env, ...env, PORT: String(port) }, output: (line) => log.write(line + '\n') });
  let exited = false;
  void proc.exited.then(() => (exited = true));
  const url = `http://127.0.0.1:${port}`;
  await waitUntilUp(`${url}/health`, `the Spring Boot app (${jar})`, () => exited, 180_000);
  return { url, stop: () => proc.stop() };
}
