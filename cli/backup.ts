// `keyflow backup --out DIR` and `keyflow restore --from DIR`: a copy of
// Keyflow's MongoDB database in a folder (one gzip file of Extended JSON lines
// per collection, then manifest.json with each file's SHA-256), and its restore
// into an empty database. Signing keys and secrets are in the copy as they are
// stored, sealed under the KEK; the KEK is not, and a restore checks that the
// configured one is the backup's before writing anything. Temporal's database
// is backed up on its own (docs/deployment.md, "Backup and restore").
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import type { Config } from '../lib/config/env.js';
import { BACKUP_FORMAT, BackupManifest, collectionFile, MANIFEST_FILE } from '../lib/model/backup-manifest.js';
import { ConflictError } from '../lib/model/errors.js';
import { currentDate } from '../lib/runtime/clock.js';
import { loadKek } from '../lib/security/kek.js';
import { collectionNames, collectionsWithDocuments, documentLines, insertDocumentLines } from '../lib/store/backup.js';
import type { Store } from '../lib/store/db.js';
import { cliAudit, OPERATOR } from './events.js';
import { parseCommand, print, required } from './usage.js';
import { optionsOf } from './commands.js';

export async function backupCommand(store: Store, cfg: Config, _sub: string | undefined, argv: string[]): Promise<void> {
  const { values } = parseCommand(argv, optionsOf('backup'));
  const dir = path.resolve(required(values.out as string | undefined, '--out'));
  if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) throw new ConflictError(`${dir} is not empty: name a new folder for the backup`);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const kek = loadKek(cfg.kek, cfg.dataDir);
  const startedAt = currentDate().toISOString();
  const collections: BackupManifest['collections'] = {};
  for (const name of await collectionNames(store)) {
    const hash = createHash('sha256');
    let documents = 0;
    const lines = async function* () {
      for await (const line of documentLines(store, name)) {
        const text = line + '\n';
        hash.update(text);
        documents++;
        yield text;
      }
    };
    await pipeline(Readable.from(lines()), createGzip(), fs.createWriteStream(path.join(dir, collectionFile(name)), { mode: 0o600 }));
    collections[name] = { documents, sha256: hash.digest('hex') };
  }
  const manifest: BackupManifest = {
    format: BACKUP_FORMAT,
    startedAt,
    finishedAt: currentDate().toISOString(),
    database: cfg.mongo.database,
    kek: { id: kek.id },
    collections,
  };
  // Last: a folder without a manifest is a backup that did not finish.
  fs.writeFileSync(path.join(dir, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600 });
  const documents = Object.values(collections).reduce((sum, c) => sum + c.documents, 0);
  await cliAudit(store).record('backup.created', {
    actor: OPERATOR,
    data: { collections: Object.keys(collections).length, documents, kek_id: kek.id },
  });
  print({ backup: dir, database: manifest.database, collections: Object.keys(collections).length, documents, kek_id: kek.id });
}

export async function restoreCommand(store: Store, cfg: Config, _sub: string | undefined, argv: string[]): Promise<void> {
  const { values } = parseCommand(argv, optionsOf('restore'));
  const dir = path.resolve(required(values.from as string | undefined, '--from'));
  const manifest = readManifest(dir);
  const kek = loadKek(cfg.kek, cfg.dataDir);
  if (kek.id !== manifest.kek.id) {
    throw new ConflictError(
      `the backup's keys are sealed under the KEK ${manifest.kek.id}, and this Keyflow's KEK is ${kek.id}: set KEYFLOW_KEK to the KEK the backup was made with`,
    );
  }
  // Every file checked before anything is written: a damaged backup restores nothing.
  for (const [name, entry] of Object.entries(manifest.collections)) {
    const hash = createHash('sha256');
    let documents = 0;
    for await (const line of fileLines(dir, name)) {
      hash.update(line + '\n');
      documents++;
    }
    if (hash.digest('hex') !== entry.sha256 || documents !== entry.documents) {
      throw new ConflictError(`${collectionFile(name)} in ${dir} is not the file the backup wrote (its SHA-256 or document count differs)`);
    }
  }
  const occupied = await collectionsWithDocuments(store);
  if (occupied.length > 0) {
    throw new ConflictError(
      `MONGODB_DATABASE=${cfg.mongo.database} already holds documents (${occupied.slice(0, 3).join(', ')}${occupied.length > 3 ? ', …' : ''}): restore into an empty database`,
    );
  }
  let documents = 0;
  for (const name of Object.keys(manifest.collections)) documents += await insertDocumentLines(store, name, fileLines(dir, name));
  await cliAudit(store).record('backup.restored', {
    actor: OPERATOR,
    data: { collections: Object.keys(manifest.collections).length, documents, backup_finished_at: manifest.finishedAt },
  });
  print({
    restored: dir,
    database: cfg.mongo.database,
    collections: Object.keys(manifest.collections).length,
    documents,
    backup_finished_at: manifest.finishedAt,
  });
}

function readManifest(dir: string): BackupManifest {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, MANIFEST_FILE), 'utf8');
  } catch {
    throw new ConflictError(`${dir} has no ${MANIFEST_FILE}: it is not a Keyflow backup, or one that did not finish`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConflictError(`${path.join(dir, MANIFEST_FILE)} is not JSON`);
  }
  const parsed = BackupManifest.safeParse(json);
  if (!parsed.success)
    throw new ConflictError(`${path.join(dir, MANIFEST_FILE)} is not a ${BACKUP_FORMAT} manifest (${parsed.error.issues[0]?.path.join('.')})`);
  return parsed.data;
}

/** The lines of a collection's file, uncompressed, without their newlines; a damaged file throws. */
async function* fileLines(dir: string, name: string): AsyncGenerator<string> {
  const file = path.join(dir, collectionFile(name));
  if (!fs.existsSync(file)) throw new ConflictError(`${file} is missing from the backup`);
  const source = fs.createReadStream(file);
  const gunzip = createGunzip();
  source.on('error', (err) => gunzip.destroy(err));
  gunzip.setEncoding('utf8');
  let rest = '';
  try {
    for await (const chunk of source.pipe(gunzip) as AsyncIterable<string>) {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop()!;
      yield* lines;
    }
  } catch (err) {
    throw new ConflictError(`${file} cannot be read (${(err as Error).message})`);
  }
  if (rest !== '') yield rest;
}
