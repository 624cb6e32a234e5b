// The workflow bundle of a worker process, built once per build. Bundling the
// workflows (webpack, inside Temporal's SDK) takes 10–30 s of CPU at every
// worker start; the bundle depends only on the compiled workflows and what
// they import, the packages installed and the workflow interceptors, so it is
// kept under dist/ keyed by those and reused by the next start of the same
// build. The key reads each input's path, size and modification time (a
// rebuild rewrites them all); a read-only dist/ (a hardened container) just
// bundles in memory as before. The folder is the deploying user's own (0700),
// never a shared temporary folder, where someone else could plant a bundle.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import type { Logger } from '../lib/runtime/log.js';
import { PROJECT_ROOT } from '../lib/runtime/paths.js';

const CACHE_DIR = path.join(PROJECT_ROOT, 'dist/.workflow-bundles');
/** What a bundle is made of: the compiled workflows, the modules they import, and the installed packages. */
const INPUT_DIRS = ['dist/workflows', 'dist/lib'].map((d) => path.join(PROJECT_ROOT, d));
const LOCKFILE = path.join(PROJECT_ROOT, 'package-lock.json');

function describeTree(dir: string, into: string[]): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) describeTree(full, into);
    else if (entry.name.endsWith('.js')) {
      const stat = fs.statSync(full);
      into.push(`${full}:${stat.size}:${Math.trunc(stat.mtimeMs)}`);
    }
  }
}

/** A key that changes whenever the bundle would: any input file rewritten, another lockfile, other interceptors. */
export function bundleKey(interceptorModules: readonly string[]): string {
  const parts: string[] = [...interceptorModules];
  for (const dir of INPUT_DIRS) describeTree(dir, parts);
  parts.push(crypto.createHash('sha256').update(fs.readFileSync(LOCKFILE)).digest('hex'));
  return crypto.createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 32);
}

/** The bundle of `workflowsPath` with `interceptorModules`: the one this build made before, else a new one, kept for the next start. */
export async function workflowBundle(workflowsPath: string, interceptorModules: string[], log: Logger): Promise<{ code: string }> {
  const file = path.join(CACHE_DIR, `${bundleKey(interceptorModules)}.js`);
  try {
    return { code: fs.readFileSync(file, 'utf8') };
  } catch {
    // Not built yet for this build: bundled below.
  }
  const started = performance.now();
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: interceptorModules,
    // The bundler's own progress lines stay out of the log; its warnings go into it.
    logger: new DefaultLogger('WARN', (entry) => log.warn(entry.message, entry.meta)),
  });
  try {
    fs.mkdirSync(CACHE_DIR, { recursive: true, mode: 0o700 });
    // Written aside and renamed: a worker starting beside this one reads a whole bundle or none.
    const partial = `${file}.${process.pid}.partial`;
    fs.writeFileSync(partial, code, { mode: 0o600 });
    fs.renameSync(partial, file);
  } catch (err) {
    log.debug('workflow bundle not kept', { error: (err as Error).message });
  }
  log.info('workflows bundled', { durationMs: Math.round(performance.now() - started) });
  return { code };
}
