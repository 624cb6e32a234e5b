// `keyflow audit list|verify|export`: the audit trail newest first, filtered
// (user, client, event or prefix, outcome, IP, time range), one JSON record
// per line as the admin API shows it (lib/audit/audit-json.ts) with the next
// page's cursor on stderr (a filter or cursor that cannot be read is a usage
// error, exit 2); the sealed chain verified (in MongoDB, against the sealer's
// head in Temporal, or an export offline); the chain exported with its proofs.
import fs from 'node:fs';
import readline from 'node:readline';
import type { JWK } from 'jose';
import { exportLines } from '../lib/audit/audit-export.js';
import { jwksVerificationKeys, siteVerificationKeys } from '../lib/audit/audit-keys.js';
import { auditRecordJson, auditTime } from '../lib/audit/audit-json.js';
import { AuditFilterError, searchAudit, type AuditFilter } from '../lib/audit/audit-search.js';
import { verifyExportLines, verifyStoredChain, type VerifyReport } from '../lib/audit/audit-verify.js';
import type { Config } from '../lib/config/env.js';
import { sealerHead } from '../lib/flows/audit-sealer.js';
import type { ChainHead } from '../lib/model/audit-sealer.js';
import { loadKek } from '../lib/security/kek.js';
import { connectTemporalClient } from '../lib/temporal/connection.js';
import type { Store } from '../lib/store/db.js';
import { cliIo } from './io.js';
import { parseCommand, UsageError } from './usage.js';
import { optionsOf } from './commands.js';

/** How long `audit verify` waits to reach Temporal before checking without the sealer's head. */
const CONNECT_TIMEOUT_MS = 3_000;

/** An ISO 8601 date or time; a bare date is its UTC midnight. */
export function parseTime(flag: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const time = auditTime(value);
  if (!time) throw new UsageError(`--${flag} must be an ISO 8601 date or time, e.g. 2026-11-28 or 2026-11-28T10:00:00Z`);
  return time;
}

export function parseLimit(value: string | undefined, fallback: number, max: number): number {
  const limit = value === undefined ? fallback : Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > max) throw new UsageError(`--limit must be an integer from 1 to ${max}`);
  return limit;
}

async function list(store: Store, argv: string[]): Promise<void> {
  const { values } = parseCommand(argv, optionsOf('audit list'));
  const v = values as Record<string, string | undefined>;
  const limit = parseLimit(v.limit, 100, 1000);
  if (v.outcome !== undefined && v.outcome !== 'success' && v.outcome !== 'failure') throw new UsageError('--outcome must be success or failure');
  const filter: AuditFilter = {
    ...(v.user ? { userId: v.user } : {}),
    ...(v.client ? { clientId: v.client } : {}),
    ...(v.event ? { event: v.event } : {}),
    ...(v.outcome ? { outcome: v.outcome } : {}),
    ...(v.ip ? { ip: v.ip } : {}),
    ...(v.since ? { since: parseTime('since', v.since) } : {}),
    ...(v.until ? { until: parseTime('until', v.until) } : {}),
  };
  try {
    const page = await searchAudit(store, filter, limit, v.cursor);
    const io = cliIo();
    for (const r of page.records) io.stdout(JSON.stringify(auditRecordJson(r)) + '\n');
    if (page.next) io.stderr(`keyflow: more records: --cursor ${page.next}\n`);
  } catch (err) {
    if (err instanceof AuditFilterError)
      throw new UsageError(err.message.replace(/^no audit event/, '--event: no audit event').replace(/^cursor:/, '--cursor:'));
    throw err;
  }
}

/** The sealer's head in Temporal, to compare the chain's end with; null (and a note) when Temporal does not answer. */
async function temporalHead(cfg: Config): Promise<ChainHead | null> {
  const temporal = await connectTemporalClient(cfg, CONNECT_TIMEOUT_MS).catch(() => null);
  try {
    const head = temporal ? await sealerHead({ client: temporal.client, taskQueue: cfg.temporal.taskQueue }).catch(() => null) : null;
    if (!head)
      cliIo().stderr(
        `keyflow: note: the sealer's head in Temporal (${cfg.temporal.address}) could not be read; the chain's end is checked against MongoDB alone\n`,
      );
    return head;
  } finally {
    await temporal?.close();
  }
}

/** Prints the report: each problem on a line, then the summary; a chain with problems exits 1. */
function report(result: VerifyReport): void {
  const io = cliIo();
  for (const problem of result.problems) io.stdout(`${problem}\n`);
  io.stdout(
    JSON.stringify({
      verified: result.problems.length === 0,
      from_batch: result.from,
      to_batch: result.to,
      batches: result.batches,
      records: result.records,
      problems: result.problems.length,
    }) + '\n',
  );
  if (result.problems.length)
    throw new Error(`the audit chain failed verification: ${result.problems.length} problem${result.problems.length > 1 ? 's' : ''} (listed above)`);
}

async function verify(store: Store, cfg: Config, argv: string[]): Promise<void> {
  const { values } = parseCommand(argv, optionsOf('audit verify'));
  const v = values as Record<string, string | undefined>;
  if (v.jwks !== undefined) throw new UsageError('--jwks goes with --file');
  const since = parseTime('since', v.since);
  const keys = await siteVerificationKeys(store, loadKek(cfg.kek, cfg.dataDir));
  report(await verifyStoredChain(store, keys, { ...(since ? { since } : {}), anchor: await temporalHead(cfg) }));
}

/** `audit verify --file F [--jwks F]`: an export, offline. */
export async function verifyFileCommand(argv: string[]): Promise<void> {
  const { values } = parseCommand(argv, optionsOf('audit verify'));
  const v = values as Record<string, string | undefined>;
  if (v.since !== undefined) throw new UsageError('--since is for the database; an export covers the range it was made for');
  const file = v.file!;
  if (!fs.existsSync(file)) throw new UsageError(`--file: no such file: ${file}`);
  const pinned = v.jwks === undefined ? null : await jwksVerificationKeys(JSON.parse(fs.readFileSync(v.jwks, 'utf8')) as { keys: JWK[] });
  const lines = readline.createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Infinity });
  report(
    await verifyExportLines(lines, async (header) => {
      const keys = pinned ?? (await jwksVerificationKeys({ keys: header.keys }));
      if (!pinned)
        cliIo().stderr(
          `keyflow: note: trusting the keys the export names (${[...keys.keys()].join(', ')}); pass --jwks with the site's saved /jwks to pin them\n`,
        );
      return keys;
    }),
  );
}

async function exportChain(store: Store, cfg: Config, argv: string[]): Promise<void> {
  const { values } = parseCommand(argv, optionsOf('audit export'));
  const v = values as Record<string, string | undefined>;
  const since = parseTime('since', v.since);
  const until = parseTime('until', v.until);
  const keys = await siteVerificationKeys(store, loadKek(cfg.kek, cfg.dataDir));
  const io = cliIo();
  for await (const line of exportLines(store, keys, { ...(since ? { since } : {}), ...(until ? { until } : {}) })) io.stdout(line + '\n');
}

export async function auditCommand(store: Store, cfg: Config, sub: string | undefined, argv: string[]): Promise<void> {
  if (sub === 'list') return list(store, argv);
  if (sub === 'verify') return verify(store, cfg, argv);
  if (sub === 'export') return exportChain(store, cfg, argv);
  throw new UsageError(`unknown command: audit ${sub ?? ''}`.trim());
}
