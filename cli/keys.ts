// `keyflow keys list|rotate|retire`: the signing keys (keys/keyring.ts), each
// with its phase. A refused retirement (the signing key) exits 1. Keys are
// rotated and retired only here (the api and worker only make the first key of
// each algorithm): key.rotated and key.retired are recorded here.
import type { Config } from '../lib/config/env.js';
import { ConflictError } from '../lib/model/errors.js';
import { Keyring, keyInfoJson } from '../lib/keys/keyring.js';
import { SIGNING_ALGS, type SigningAlg } from '../lib/model/signing-keys.js';
import { createMlDsa65 } from '../lib/keys/mldsa.js';
import { loadKek } from '../lib/security/kek.js';
import type { Store } from '../lib/store/db.js';
import { cliAudit, OPERATOR } from './events.js';
import { parseCommand, print, required, UsageError } from './usage.js';
import { optionsOf } from './commands.js';

export async function keysCommand(store: Store, cfg: Config, sub: string | undefined, argv: string[]): Promise<void> {
  const keyring = () => new Keyring(store, loadKek(cfg.kek, cfg.dataDir), createMlDsa65(cfg.mldsa));
  if (sub === 'list') {
    parseCommand(argv, optionsOf('keys list'));
    return print((await keyring().list()).map(keyInfoJson));
  }
  if (sub === 'rotate') {
    const { values } = parseCommand(argv, optionsOf('keys rotate'));
    const alg = values.alg as string | undefined;
    if (alg !== undefined && !SIGNING_ALGS.includes(alg as SigningAlg)) throw new UsageError(`--alg must be one of ${SIGNING_ALGS.join(', ')}`);
    const ring = keyring();
    const algs = alg ? [alg as SigningAlg] : SIGNING_ALGS;
    const audit = cliAudit(store);
    const rotated = [];
    for (const a of algs) {
      const key = await ring.rotate(a);
      await audit.record('key.rotated', { actor: OPERATOR, subject: { keyId: key.kid }, data: { kid: key.kid, alg: key.alg } });
      rotated.push(key);
    }
    return print(rotated.map(keyInfoJson));
  }
  if (sub === 'retire') {
    // A kid is base64url and may start with '-': it is taken as it is, never parsed as an option.
    const args = argv[0] === '--' ? argv.slice(1) : argv;
    if (args.length > 1) throw new UsageError(`unexpected argument: ${args[1]}`);
    const kid = required(args[0], 'KID');
    const ring = keyring();
    const wasActive = (await ring.list()).some((k) => k.kid === kid && k.status === 'active');
    let key;
    try {
      key = await ring.retire(kid);
    } catch (err) {
      throw new ConflictError((err as Error).message);
    }
    // A key retired already stays as it was: nothing to record.
    if (wasActive) await cliAudit(store).record('key.retired', { actor: OPERATOR, subject: { keyId: kid }, data: { kid, alg: key.alg } });
    return print(keyInfoJson(key));
  }
  throw new UsageError(`unknown command: keys ${sub ?? ''}`.trim());
}
