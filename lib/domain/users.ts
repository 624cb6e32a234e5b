// The user account: what an operator (and later the admin API) may set.
import { z } from 'zod';
import { PASSWORD_MIN_LENGTH } from '../security/password.js';

export type Role = 'user' | 'admin';

export const NewUserInput = z.object({
  email: z.email('must be an email address').max(254).transform((e) => e.toLowerCase()),
  password: z.string().min(PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`).max(1024, 'must be at most 1024 characters'),
  name: z.string().trim().min(1).max(200).optional(),
  username: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'must be 1-63 lowercase letters, digits, ".", "_" or "-"')
    .optional(),
  admin: z.boolean().default(false),
});
export type NewUserInput = z.input<typeof NewUserInput>;

/** The default username: the email's local part, reduced to the allowed characters. */
export function usernameFromEmail(email: string): string {
  const local = email.split('@')[0]!.toLowerCase().replace(/[^a-z0-9._-]/g, '');
  return (/^[a-z0-9]/.test(local) ? local : `u${local}`).slice(0, 63) || 'user';
}

/** What a user may change on their profile (the account page and PATCH /api/oauth/me/profile). */
export const ProfileUpdate = z
  .object({
    name: z.string().trim().max(200, 'must be at most 200 characters').optional(),
    picture: z
      .union([
        z.literal('').transform(() => null),
        z.null(),
        z.url({ protocol: /^https$/, error: 'must be an https URL' }).max(2048, 'must be at most 2048 characters'),
      ])
      .optional(),
  })
  .strict();
export type ProfileUpdate = z.output<typeof ProfileUpdate>;
