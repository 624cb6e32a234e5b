// `npm run stack`: the production topology on this machine (stack.ts) until
// Ctrl-C, its URLs printed. `npm run stack -- test`: the same, then the checks
// of checks.ts against it; prints each result, writes them to
// data/stack/last-result.json and exits 0 only if every check passed.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';
import { makeCertificate } from './nginx.js';
import { startStack } from './stack.js';
import { stackChecks } from './checks.js';

const mode = process.argv[2] ?? 'run';
if (mode !== 'run' && mode !== 'test') {
  console.error('usage: npm run stack [-- test]');
  process.exit(2);
}
const dir = process.env.KEYFLOW_STACK_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'keyflow-stack-'));
// PostgreSQL runs as its own user (postgres.ts) and must reach its folder inside this one.
fs.mkdirSync(dir, { recursive: true });
fs.chmodSync(dir, 0o755);

// Node trusts extra CAs only from its start: the certificate is made first, then
// this runs again trusting it (beside any bundle the environment already names).
if (!process.env.KEYFLOW_STACK_CHILD) {
  const certificate = makeCertificate(path.join(dir, 'nginx'));
  const bundle = path.join(dir, 'nginx', 'trusted.pem');
  const existing = process.env.NODE_EXTRA_CA_CERTS;
  fs.writeFileSync(bundle, (existing && fs.existsSync(existing) ? fs.readFileSync(existing, 'utf8') + '\n' : '') + fs.readFileSync(certificate, 'utf8'));
  const again = spawnSync(process.execPath, process.execArgv.concat(process.argv.slice(1)), {
    stdio: 'inherit',
    env: { ...process.env, NODE_EXTRA_CA_CERTS: bundle, KEYFLOW_STACK_DIR: dir, KEYFLOW_STACK_CHILD: '1' },
  });
  if (!process.env.KEYFLOW_STACK_KEEP) fs.rmSync(dir, { recursive: true, force: true });
  process.exit(again.status ?? 1);
}

const log = (line: string) => process.stdout.write(line + '\n');
const deliveries: http.IncomingHttpHeaders[] = [];
const receiver = http.createServer((req, res) => {
  deliveries.push(req.headers);
  req.resume();
  req.on('end', () => res.end('ok'));
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;

log(`stack: starting in ${dir} (PostgreSQL, Temporal's server, FerretDB, 2 apis, 2 workers, nginx)…`);
const started = Date.now();
const logFile = path.join(dir, 'stack.log');
const stack = await startStack({
  dir,
  output: mode === 'test' ? (line) => fs.appendFileSync(logFile, line + '\n') : log,
  env: {
    OUTBOUND_ALLOWLIST: `webhooks=${new URL(receiverUrl).host}`,
    SIGNIN_LIMIT_PER_IP: '5',
    DEPENDENCY_TIMEOUT_MS: '3000',
  },
}).catch((err: unknown) => {
  // A failed step's own output (stderr of a tool) says why; the processes' output is in the log.
  const e = err as Error & { stderr?: Buffer };
  log(
    `stack: could not start: ${e.message.split('\n')[0]}${e.stderr?.length ? `\n${e.stderr.toString().trim()}` : ''}\n(the processes' output: ${logFile}; KEYFLOW_STACK_KEEP=1 keeps it)`,
  );
  process.exit(1);
});
log(`stack: up in ${Math.round((Date.now() - started) / 1000)} s — ${stack.issuer} (Temporal ${stack.temporal.address}, MongoDB ${stack.env.MONGODB_URI})`);

const stop = async () => {
  await stack.stop();
  receiver.close();
};
if (mode === 'run') {
  log('stack: Ctrl-C stops it');
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stop().then(() => process.exit(0)));
} else {
  const { checks, close } = stackChecks(stack, { url: receiverUrl, deliveries: () => deliveries });
  const results: { check: string; ok: boolean; detail: string; seconds: number }[] = [];
  for (const check of checks) {
    const t = Date.now();
    try {
      const detail = await check.run();
      results.push({ check: check.name, ok: true, detail, seconds: Math.round((Date.now() - t) / 100) / 10 });
    } catch (err) {
      results.push({ check: check.name, ok: false, detail: (err as Error).message, seconds: Math.round((Date.now() - t) / 100) / 10 });
    }
    const last = results[results.length - 1]!;
    log(`${last.ok ? 'PASS' : 'FAIL'} ${last.check} (${last.seconds} s): ${last.detail}`);
  }
  await close();
  await stop();
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).stdout.trim();
  const out = path.join(PROJECT_ROOT, 'data/stack');
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, 'last-result.json'), JSON.stringify({ at: new Date().toISOString(), commit, results }, null, 2) + '\n');
  const failed = results.filter((r) => !r.ok).length;
  log(`stack: ${results.length - failed} of ${results.length} checks passed (commit ${commit}); results in data/stack/last-result.json`);
  process.exit(failed ? 1 : 0);
}
