// `keyflow invites ...`: the operator's invitations, through the same changes
// as the admin API (admin/invite-changes.ts): the same checks, the same
// invite.create / invite.revoke admin events with the operator as actor.
// `create` prints the link once (it is stored only as a hash); invalid values
// exit 2, an unknown invitation and revoking a used one exit 1.
import type { Config } from '../lib/config/env.js';
import { NotFoundError } from '../lib/model/errors.js';
import { inviteJson } from '../lib/model/invites.js';
import type { Store } from '../lib/store/db.js';
import { findInvite, listInvites } from '../lib/store/invites.js';
import { createInvite, revokeInvite, type InviteDeps } from '../lib/admin/invite-changes.js';
import { cliEvents, OPERATOR } from './events.js';
import { parseCommand, print, UsageError } from './usage.js';
import { optionsOf } from './commands.js';
import { currentDate } from '../lib/runtime/clock.js';

/** A whole number option, or a usage error naming it. */
function whole(name: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d{1,9}$/.test(raw) || n < min || n > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  return n;
}

export async function invitesCommand(store: Store, cfg: Config, sub: string | undefined, argv: string[]): Promise<void> {
  if (sub === 'list') {
    const { values } = parseCommand(argv, optionsOf('invites list'));
    const now = currentDate();
    print((await listInvites(store, whole('limit', values.limit as string | undefined, 1, 1000) ?? 100, 0)).map((i) => inviteJson(i, now)));
    return;
  }
  if (sub !== 'create' && sub !== 'revoke') throw new UsageError(`unknown command: invites ${sub ?? ''}`.trim());
  const { values, positionals } = parseCommand(argv, optionsOf(`invites ${sub}`), sub === 'create' ? 0 : 1);
  const events = cliEvents(cfg, store);
  const deps: InviteDeps = { store, issuer: cfg.issuer, events };
  try {
    if (sub === 'create') {
      const input = {
        email: values.email,
        role: values.role,
        expires_in_days: whole('expires-in-days', values['expires-in-days'] as string | undefined, 1, 90),
      };
      const { invite, link } = await createInvite(deps, Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)), OPERATOR);
      print({ ...inviteJson(invite), link });
      return;
    }
    const invite = await findInvite(store, positionals[0]!);
    if (!invite) throw new NotFoundError(`no invitation with id ${positionals[0]}`);
    print(inviteJson(await revokeInvite(deps, invite, OPERATOR)));
  } finally {
    await events.finish();
  }
}
