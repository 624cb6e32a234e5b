// The MongoDB side of `keyflow backup` and `keyflow restore`: every collection
// of Keyflow's database read as canonical Extended JSON lines (dates, binaries
// and numbers keep their BSON types), in `_id` order; and those lines inserted
// into a database that holds no document yet. What the lines become on disk is
// the CLI's (cli/backup.ts).
import { BSON, type Document } from 'mongodb';
import type { Store } from './db.js';

/** Documents inserted per round trip on restore. */
const INSERT_BATCH = 500;

/** The names of the database's collections (MongoDB's own `system.*` left out), sorted. */
export async function collectionNames(store: Store): Promise<string[]> {
  const infos = await store.db.listCollections({}, { nameOnly: true }).toArray();
  return infos
    .map((c) => c.name)
    .filter((name) => !name.startsWith('system.'))
    .sort();
}

/** A collection's documents, one canonical Extended JSON line each (no newline), in `_id` order. */
export async function* documentLines(store: Store, name: string): AsyncGenerator<string> {
  for await (const doc of store.db.collection(name).find({}, { sort: { _id: 1 }, batchSize: 1_000 })) {
    yield BSON.EJSON.stringify(doc, { relaxed: false });
  }
}

/** Collections that hold at least one document: a restore goes into none of them. */
export async function collectionsWithDocuments(store: Store): Promise<string[]> {
  const names = await collectionNames(store);
  const counts = await Promise.all(names.map(async (name) => ((await store.db.collection(name).findOne({}, { projection: { _id: 1 } })) ? name : null)));
  return counts.filter((name): name is string => name !== null);
}

/** Inserts a collection's lines (documentLines' format); how many documents. */
export async function insertDocumentLines(store: Store, name: string, lines: AsyncIterable<string>): Promise<number> {
  const collection = store.db.collection(name);
  let batch: Document[] = [];
  let inserted = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await collection.insertMany(batch, { ordered: true });
    inserted += batch.length;
    batch = [];
  };
  for await (const line of lines) {
    if (line === '') continue;
    batch.push(BSON.EJSON.parse(line, { relaxed: false }) as Document);
    if (batch.length >= INSERT_BATCH) await flush();
  }
  await flush();
  return inserted;
}
