// Holder documents: "this owner has at least one X", for an X that FerretDB v1
// finds only by reading the whole collection (it looks up by index only for a
// lone `_id`). Most owners have none, and one `_id` lookup of the holder tells
// them apart; only holders pay for the scan (passkeys.ts, webhook-slots.ts).
//
// Without transactions the order of writes is what keeps it right:
// - adding: the X first, then the holder (insertIfAbsent);
// - removing: the X, then the holder is deleted, then written again if any X
//   remains (settleHolder).
// A holder may outlive its last X for a moment (readers then find none), but an
// owner with an X always ends up with a holder: an add whose holder insert
// came before a removal's delete had inserted its X before that removal
// looked for what remains, so the removal sees it and writes the holder back.
import type { Collection, Filter, OptionalUnlessRequiredId } from 'mongodb';
import { insertIfAbsent } from './db.js';

type Holder = { _id: string };

/** Whether the holder document `id` is there. */
export async function isHolder<T extends Holder>(holders: Collection<T>, id: string): Promise<boolean> {
  return (await holders.findOne({ _id: id } as Filter<T>)) !== null;
}

/** After an X was added: its owner's holder (already there: nothing to do). */
export async function markHolder<T extends Holder>(holders: Collection<T>, holder: OptionalUnlessRequiredId<T>): Promise<void> {
  await insertIfAbsent(holders, holder);
}

/** After an X was removed: the holder goes, and comes back if `remains` still finds one. */
export async function settleHolder<T extends Holder>(
  holders: Collection<T>,
  holder: OptionalUnlessRequiredId<T> & Holder,
  remains: () => Promise<boolean>,
): Promise<void> {
  await holders.deleteOne({ _id: holder._id } as Filter<T>);
  if (await remains()) await insertIfAbsent(holders, holder);
}
