// The user account: the stored document, what an operator (and later the
// admin API) may set, and what a user may change on their profile.
import { z } from 'zod';
import type { Sealed } from '../security/kek.js';
import { hashPassword, PASSWORD_MIN_LENGTH } from '../security/password.js';
import { passwordProblem } from '../security/password-policy.js';
import { newId } from '../security/secrets.js';
import { ValidationError, zodProblems } from './errors.js';
import { clearable, HttpsUrl, PROFILE_CLAIM_FIELDS, PROFILE_CLAIM_INPUTS, sameFieldValue, type ProfileClaimFields } from './profile-fields.js';
import { currentDate } from '../runtime/clock.js';

export type Role = 'user' | 'admin';

/** The stored account; the standard claims the user set (given_name, address, phone_number …) are its ProfileClaimFields. */
export interface UserDoc extends ProfileClaimFields {
  _id: string;
  email: string;
  emailVerified: boolean;
  username: string;
  name: string;
  picture: string | null;
  role: Role;
  passwordHash: string;
  /** Confirmed TOTP authenticator; the secret is sealed with the KEK. */
  totp: { secret: Sealed; lastTimeStep: number | null; enabledAt: Date } | null;
  /** TOTP enrollment shown but not yet confirmed by a code. */
  totpPending: { secret: Sealed; createdAt: Date } | null;
  /** Unused backup codes, as keyed hashes (security/backup-codes.ts). */
  backupCodes: string[];
  /** Set by an administrator: no sign-in, no personal access token works. Absent on older documents: enabled. */
  disabled?: boolean;
  createdAt: Date;
  updatedAt: Date;
}

const Email = z
  .email('must be an email address')
  .max(254)
  .transform((e) => e.toLowerCase());
const Username = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'must be 1-63 lowercase letters, digits, ".", "_" or "-"');
const Name = z.string().trim().min(1).max(200);

export const NewUserInput = z.object({
  email: Email,
  password: z.string().min(PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`).max(1024, 'must be at most 1024 characters'),
  name: Name.optional(),
  username: Username.optional(),
  admin: z.boolean().default(false),
});
export type NewUserInput = z.input<typeof NewUserInput>;

/** The default username: the email's local part, reduced to the allowed characters. */
export function usernameFromEmail(email: string): string {
  const local = email
    .split('@')[0]!
    .toLowerCase()
    .replace(/[^a-z0-9._-]/g, '');
  return (/^[a-z0-9]/.test(local) ? local : `u${local}`).slice(0, 63) || 'user';
}

/**
 * What a user may change on their profile (the account page and PATCH
 * /api/oauth/me/profile), by claim name: absent leaves a field as it is, null
 * or "" clears it. Not phone_number_verified: no one proves a number here.
 */
export const ProfileUpdate = z
  .object({
    name: z.string('must be text').trim().max(200, 'must be at most 200 characters').optional(),
    picture: clearable(HttpsUrl),
    ...PROFILE_CLAIM_INPUTS,
  })
  .strict();
export type ProfileUpdate = z.output<typeof ProfileUpdate>;

/** A new account from what an operator gave: validated, its password checked against the policy and hashed. */
export async function newUserAccount(input: NewUserInput): Promise<UserDoc> {
  const parsed = NewUserInput.safeParse(input);
  if (!parsed.success) throw new ValidationError(zodProblems(parsed.error.issues));
  const { email, password, name, username, admin } = parsed.data;
  const problem = await passwordProblem(password, email);
  if (problem) throw new ValidationError([`password: ${problem}`]);
  const now = currentDate();
  return {
    _id: newId(),
    email,
    // Operator-created accounts are trusted: the operator vouches for the address.
    emailVerified: true,
    username: username ?? usernameFromEmail(email),
    name: name ?? '',
    picture: null,
    role: admin ? 'admin' : 'user',
    passwordHash: await hashPassword(password),
    totp: null,
    totpPending: null,
    backupCodes: [],
    createdAt: now,
    updatedAt: now,
  };
}

/** The profile fields a change sets and clears, and the claims it changed. */
export interface ProfileChanges {
  set: Partial<Pick<UserDoc, 'name' | 'picture'> & ProfileClaimFields>;
  unset: (keyof ProfileClaimFields)[];
  /** Claim names (`given_name`, `phone_number` …), as the profile.updated event names them. */
  changed: string[];
}

/** What a validated profile update changes on the user's profile as it is. */
export function profileChanges(before: Pick<UserDoc, 'name' | 'picture'> & ProfileClaimFields, update: ProfileUpdate): ProfileChanges {
  const set: ProfileChanges['set'] = {};
  const unset: ProfileChanges['unset'] = [];
  const changed: string[] = [];
  if (update.name !== undefined && update.name !== before.name) set.name = update.name;
  if (update.picture !== undefined && update.picture !== before.picture) set.picture = update.picture;
  changed.push(...Object.keys(set));
  for (const [claim, field] of Object.entries(PROFILE_CLAIM_FIELDS) as [keyof typeof PROFILE_CLAIM_FIELDS, keyof ProfileClaimFields][]) {
    const value = update[claim];
    if (value === undefined || sameFieldValue(value ?? undefined, before[field])) continue;
    if (value === null) unset.push(field);
    else Object.assign(set, { [field]: value });
    changed.push(claim);
  }
  // A new number is not the one an administrator verified. Cleared on every change of
  // the number, whatever was read: an administrator's mark written meanwhile goes too.
  if (changed.includes('phone_number')) {
    unset.push('phoneNumberVerified');
    if (before.phoneNumberVerified === true) changed.push('phone_number_verified');
  }
  return { set, unset, changed };
}

/** What an administrator may change on an account (the admin API's PATCH body, `keyflow users update`). */
export const AdminUserUpdate = z
  .object({
    name: z.string().trim().max(200, 'must be at most 200 characters').optional(),
    email: Email.optional(),
    username: Username.optional(),
    role: z.enum(['user', 'admin'], 'must be "user" or "admin"').optional(),
    disabled: z.boolean('must be true or false').optional(),
    // Keyflow sends no SMS: a phone number counts as verified only when an administrator says so.
    phone_number_verified: z.boolean('must be true or false').optional(),
  })
  .strict();
export type AdminUserUpdate = z.output<typeof AdminUserUpdate>;

export const isDisabled = (user: Pick<UserDoc, 'disabled'>): boolean => user.disabled === true;

/** An enabled administrator: who counts towards "the last admin". */
export const isEnabledAdmin = (user: Pick<UserDoc, 'role' | 'disabled'>): boolean => user.role === 'admin' && !isDisabled(user);

/** The one refusal every sign-in path gives a disabled account: it says no more than that. */
export const ACCOUNT_DISABLED = 'This account is disabled.';

/** `user_keys`: an email or username (`_id` `email:<email>`, `username:<username>`) and the user holding it (lib/store/user-lookups.ts). */
export interface UserKeyDoc {
  _id: string;
  userId: string;
}
