// User accounts: what an operator gives for a new account (checked against
// the password policy), the default username, what an administrator may
// change, and who counts as an enabled administrator. (Profile changes:
// profile-fields.test.ts.)
import { zodProblems, ValidationError } from '../../../lib/model/errors.js';
import { ACCOUNT_DISABLED, AdminUserUpdate, isDisabled, isEnabledAdmin, newUserAccount, usernameFromEmail } from '../../../lib/model/users.js';
import { verifyPassword } from '../../../lib/security/password.js';

describe('usernameFromEmail', () => {
  it.each([
    ['ada@example.com', 'ada'],
    ['Ada.Lovelace+news@Example.com', 'ada.lovelacenews'],
    ['_ada@example.com', 'u_ada'],
    ['.ada@example.com', 'u.ada'],
    ['élodie@example.com', 'lodie'],
    ['@example.com', 'u'],
    [`${'a'.repeat(80)}@example.com`, 'a'.repeat(63)],
  ])('makes %j into %j', (email, username) => {
    expect(usernameFromEmail(email)).toBe(username);
    expect(username).toMatch(/^[a-z0-9][a-z0-9._-]{0,62}$/);
  });
});

describe('newUserAccount', () => {
  const password = 'correct horse battery staple';

  it('makes a verified account with the default username and a hashed password', async () => {
    const user = await newUserAccount({ email: 'Ada@Example.com', password });
    expect(user).toMatchObject({ email: 'ada@example.com', emailVerified: true, username: 'ada', name: '', role: 'user', totp: null, backupCodes: [] });
    expect(user.passwordHash).not.toContain(password);
    expect(await verifyPassword(password, user.passwordHash)).toBe(true);
    expect((await newUserAccount({ email: 'b@example.com', password, name: ' Bea ', username: 'bea-1', admin: true })).role).toBe('admin');
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['an address that is not one', { email: 'ada' }, ['email: must be an email address']],
    ['a short password', { password: 'short' }, ['password: must be at least 12 characters']],
    ['a common password', { password: 'Password2024!' }, ['password: is too common: choose one that is not on lists of leaked passwords']],
    ['the email as password', { email: 'ada.lovelace@example.com', password: 'ada.lovelace@example.com' }, ['password: must not be your email address']],
    ['a username with capitals', { username: 'Ada' }, ['username: must be 1-63 lowercase letters, digits, ".", "_" or "-"']],
  ])('refuses %s', async (_name, change, problems) => {
    const attempt = newUserAccount({ email: 'ada@example.com', password, ...change });
    await expect(attempt).rejects.toThrow(ValidationError);
    await expect(attempt).rejects.toMatchObject({ problems });
  });
});

describe('AdminUserUpdate', () => {
  const problems = (body: unknown) => {
    const parsed = AdminUserUpdate.safeParse(body);
    return parsed.success ? [] : zodProblems(parsed.error.issues);
  };

  it('lets an administrator change the name, email, username, role, disabled and the phone number’s verification', () => {
    expect(AdminUserUpdate.parse({ email: 'New@Example.com', role: 'admin', disabled: true, phone_number_verified: true })).toEqual({
      email: 'new@example.com',
      role: 'admin',
      disabled: true,
      phone_number_verified: true,
    });
  });

  it.each<[string, unknown, string]>([
    ['another role', { role: 'owner' }, 'role: must be "user" or "admin"'],
    ['disabled as text', { disabled: 'true' }, 'disabled: must be true or false'],
    ['a password', { password: 'x' }, 'Unrecognized key: "password"'],
    ['the email verification', { email_verified: true }, 'Unrecognized key: "email_verified"'],
  ])('refuses %s', (_name, body, problem) => {
    expect(problems(body)).toEqual([problem]);
  });
});

describe('administrators and disabled accounts', () => {
  it('count an administrator only while enabled; an account without the field is enabled', () => {
    expect(isEnabledAdmin({ role: 'admin' })).toBe(true);
    expect(isEnabledAdmin({ role: 'admin', disabled: false })).toBe(true);
    expect(isEnabledAdmin({ role: 'admin', disabled: true })).toBe(false);
    expect(isEnabledAdmin({ role: 'user' })).toBe(false);
    expect(isDisabled({})).toBe(false);
    expect(ACCOUNT_DISABLED).toBe('This account is disabled.');
  });
});
