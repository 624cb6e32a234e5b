// A user account as the admin API shows it: what an administrator needs to
// see, never a password hash, TOTP secret or backup code.
import { isDisabled, type UserDoc } from '../domain/users.js';

export function adminUserJson(user: UserDoc, passkeys: number) {
  return {
    id: user._id,
    email: user.email,
    username: user.username,
    name: user.name,
    role: user.role,
    disabled: isDisabled(user),
    email_verified: user.emailVerified,
    totp_enabled: !!user.totp,
    passkeys,
    created_at: user.createdAt,
    updated_at: user.updatedAt,
  };
}
