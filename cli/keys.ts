// `keyflow keys list|rotate|retire`: the signing keys (keys/keyring.ts), each
// with its phase. A refused retirement (the signing key) exits 1.
import type { Config } from '../lib/config/env.js';
import { ConflictError } from '../lib/model/errors.js';
import { Keyring, keyInfoJson } from '../lib/keys/keyring.js';
import { SIGNING_ALGS, type SigningAlg } from '../lib/model/signing-keys.js';
import { createMlDsa65 } from '../lib/keys/mldsa.js';
import { loadKek } from '../lib/security/kek.js';
import type { Store } from '../lib/store/db.js';
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
    const rotated = [];
    for (const a of algs) rotated.push(await ring.rotate(a));
    return print(rotated.map(keyInfoJson));
  }
  if (sub === 'retire') {
    // A kid is base64url and may start with '-': it is taken as it is, never parsed as an option.
    const args = argv[0] === '--' ? argv.slice(1) : argv;
    if (args.length > 1) throw new UsageError(`unexpected argument: ${args[1]}`);
    const kid = required(args[0], 'KID');
    try {
      return print(keyInfoJson(await keyring().retire(kid)));
    } catch (err) {
      throw new ConflictError((err as Error).message);
    }
  }
  throw new UsageError(`unknown command: keys ${sub ?? ''}`.trim());
}
