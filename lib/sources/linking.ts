// Which Keyflow account an upstream sign-in belongs to. In order: the account
// already linked to this upstream account; the signed-in user who asked to
// link; the account with the same email, only when the upstream says the
// email is verified AND the account's own email is verified AND the operator
// opted this source in; a new account when the source allows sign-up. Nothing
// else: an email alone never links, since an upstream that lets anyone claim
// an unverified address would otherwise hand that address's Keyflow account
// to whoever claimed it, and an address nobody verified here may belong to
// whoever signed up with it first (open registration), who would then share
// the real owner's account.
import type { OAuthSourceDoc, SocialAccountDoc } from '../model/oauth-sources.js';
import type { UserDoc } from '../model/users.js';
import { newId } from '../security/secrets.js';
import { findSocialAccount, insertSocialAccount } from '../store/oauth-sources.js';
import { createPasswordlessUser } from '../store/passwordless-users.js';
import { removeSocialAccount } from '../store/sign-in-ways.js';
import { findUserByEmail, findUserById } from '../store/users.js';
import type { Store } from '../store/db.js';
import type { UpstreamProfile } from './upstream.js';
import { currentDate } from '../runtime/clock.js';

export type LinkOutcome =
  /** `created`: the account was made by this sign-in (the source allows sign-up). */
  | { kind: 'sign-in'; user: UserDoc; account: SocialAccountDoc; created?: true }
  | { kind: 'linked'; user: UserDoc; account: SocialAccountDoc }
  | { kind: 'refused'; reason: string }
  /** An account holds the email but may not be reached this way: its owner signs in to it another way and links from there. */
  | { kind: 'link-from-account'; reason: string };

const refused = (reason: string): LinkOutcome => ({ kind: 'refused', reason });

async function link(store: Store, source: OAuthSourceDoc, profile: UpstreamProfile, user: UserDoc): Promise<SocialAccountDoc | null> {
  const account: SocialAccountDoc = {
    _id: newId(),
    userId: user._id,
    sourceId: source._id,
    provider: source.slug,
    providerUserId: profile.subject,
    email: profile.email,
    linkedAt: currentDate(),
    lastSignInAt: null,
  };
  // The unique (source, subject) index decides between two concurrent first sign-ins.
  return (await insertSocialAccount(store, account)) ? account : null;
}

const RACE = 'This account was linked by another sign-in at the same moment. Try again.';

export async function resolveUpstreamAccount(store: Store, source: OAuthSourceDoc, profile: UpstreamProfile, linkUserId: string | null): Promise<LinkOutcome> {
  const existing = await findSocialAccount(store, source._id, profile.subject);
  if (existing) {
    const user = await findUserById(store, existing.userId);
    if (!user) return refused(`This ${source.name} account belongs to a deleted account.`);
    if (linkUserId && linkUserId !== user._id) return refused(`This ${source.name} account is already linked to another Keyflow account.`);
    return { kind: linkUserId ? 'linked' : 'sign-in', user, account: existing };
  }
  if (linkUserId) {
    const user = await findUserById(store, linkUserId);
    if (!user) return refused('Your account no longer exists.');
    const account = await link(store, source, profile, user);
    return account ? { kind: 'linked', user, account } : refused(RACE);
  }
  const sameEmail = profile.email ? await findUserByEmail(store, profile.email) : null;
  // Both sides must have verified the address; which one did not is not said (the same refusal either way).
  if (sameEmail && source.linkByVerifiedEmail && profile.emailVerified && sameEmail.emailVerified) {
    const account = await link(store, source, profile, sameEmail);
    return account ? { kind: 'sign-in', user: sameEmail, account } : refused(RACE);
  }
  if (sameEmail) {
    const reason = `An account with this email already exists. Sign in to it another way, then link ${source.name} from your account page (Sign-in methods).`;
    return { kind: 'link-from-account', reason };
  }
  if (!source.allowSignUp) return refused(`No account is linked to this ${source.name} account, and ${source.name} cannot be used to create one.`);
  if (!profile.email) return refused(`${source.name} did not share an email address, which a new account needs.`);
  const user = await createPasswordlessUser(store, { ...profile, email: profile.email });
  if (!user) return refused('An account with this email was created at the same moment. Try again.');
  const account = await link(store, source, profile, user);
  return account ? { kind: 'sign-in', user, account, created: true } : refused(RACE);
}

/**
 * Unlinks one of the user's social accounts, unless it is their last way to
 * sign in (no usable password, no passkey, no other linked account); safe
 * against parallel unlinks (store/sign-in-ways.ts).
 */
export async function unlinkSocialAccount(store: Store, user: UserDoc, accountId: string): Promise<'unlinked' | 'not_found' | 'last_way'> {
  const result = await removeSocialAccount(store, user._id, accountId);
  return result === 'removed' ? 'unlinked' : result;
}

export const LAST_WAY = 'This is your only way to sign in: add a passkey or link another account before unlinking it.';
