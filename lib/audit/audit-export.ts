// `keyflow audit export`: the sealed chain between two times as JSON lines —
// a header (the batch range, the hash the first batch follows, the checkpoint
// if the range starts there, the public keys that signed), then each batch's
// records followed by the batch with its signed head. `keyflow audit verify
// --file` checks it without MongoDB (audit-verify.ts).
import pLimit from 'p-limit';
import { currentDate } from '../runtime/clock.js';
import { findBatch, positionOf, readMeta, sealedAt } from '../store/audit-records.js';
import type { Store } from '../store/db.js';
import { sealedFields, GENESIS_HASH } from './audit-chain.js';
import { publicJwksOf, type VerificationKeys } from './audit-keys.js';
import { firstBatchSince, type ExportLine } from './audit-verify.js';

const FETCH_PARALLEL = 32;

export async function* exportLines(store: Store, keys: VerificationKeys, range: { since?: Date; until?: Date }): AsyncGenerator<string> {
  const head = await readMeta(store, 'head');
  const checkpoint = await readMeta(store, 'checkpoint');
  const start = checkpoint?.seq ?? 0;
  const last = head?.seq ?? start - 1;
  const from = range.since ? await firstBatchSince(store, start, last, range.since) : start;
  const to = range.until ? (await firstBatchSince(store, from, last, range.until)) - 1 : last;
  const prev = from === start ? (checkpoint?.hash ?? GENESIS_HASH) : ((await findBatch(store, from - 1))?.hash ?? GENESIS_HASH);
  const header: ExportLine = {
    type: 'header',
    format: 'keyflow-audit-export',
    version: 1,
    from,
    to,
    prev,
    checkpoint:
      checkpoint && checkpoint.seq === from ? { seq: checkpoint.seq, hash: checkpoint.hash, ...(checkpoint.jws ? { jws: checkpoint.jws } : {}) } : null,
    keys: publicJwksOf(keys).keys,
    exported_at: currentDate().toISOString(),
  };
  yield JSON.stringify(header);
  const fetch = pLimit(FETCH_PARALLEL);
  for (let seq = from; seq <= to; seq++) {
    const batch = await findBatch(store, seq);
    if (!batch) continue; // the verification of the file reports the gap
    const positions = Array.from({ length: batch.count }, (_, idx) => positionOf(seq, idx));
    const records = await Promise.all(positions.map((p) => fetch(async () => (await sealedAt(store, [p]))[0] ?? null)));
    for (const r of records) if (r) yield JSON.stringify({ type: 'record', position: r._id, record: sealedFields(r) } satisfies ExportLine);
    const line: ExportLine = {
      type: 'batch',
      seq,
      prev: batch.prev,
      hash: batch.hash,
      hashes: batch.hashes,
      count: batch.count,
      first: batch.first.toISOString(),
      last: batch.last.toISOString(),
      jws: batch.jws,
    };
    yield JSON.stringify(line);
  }
}
