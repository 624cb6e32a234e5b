// The manifest of a Keyflow backup (`keyflow backup`): what the folder holds
// and how to check it before a restore writes anything. Written last, so a
// backup that did not finish has none. The KEK itself is never in a backup:
// its fingerprint (the id stored beside every sealed value) says which KEK the
// sealed signing keys and secrets need.
import { z } from 'zod';

export const BACKUP_FORMAT = 'keyflow-backup/1';
export const MANIFEST_FILE = 'manifest.json';

/** The file of a collection's documents in the backup folder. */
export const collectionFile = (name: string) => `${name}.jsonl.gz`;

const CollectionEntry = z.object({
  /** Documents in the file. */
  documents: z.number().int().nonnegative(),
  /** SHA-256 of the file's uncompressed lines, hex. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

export const BackupManifest = z.object({
  format: z.literal(BACKUP_FORMAT),
  /** When the copy began and ended: writes in between may be in one collection and not another. */
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime(),
  database: z.string(),
  kek: z.object({ id: z.string().regex(/^[0-9a-f]{16}$/) }),
  collections: z.record(z.string().regex(/^[A-Za-z0-9_.-]{1,120}$/), CollectionEntry),
});
export type BackupManifest = z.infer<typeof BackupManifest>;
