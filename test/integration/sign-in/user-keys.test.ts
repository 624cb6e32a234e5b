// Users are found by email and username through key documents looked up by
// `_id` (FerretDB v1 reads every user for any other filter), and passkeys
// through a holder document. What a user sees: sign-in by email works after
// creation, after an admin changes the email (the old one no longer signs in,
// and a new account may take it), and again after a key was lost; deleting an
// account leaves no key naming its email; passkeys are found (and the last one
// removed) as before.
import { newId } from '../../../lib/security/secrets.js';
import { hasPasskey, insertPasskey, listPasskeys } from '../../../lib/store/passkeys.js';
import { removePasskey } from '../../../lib/store/sign-in-ways.js';
import { createUser, deleteUserAccount, findUserByEmail, findUserByRef, findUserByUsername, setUserFields } from '../../../lib/store/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newUser, uniqueEmail } from '../../../tools/fixtures/users.js';
import { commandFilters } from '../../support/command-filters.js';
import { useTestApi } from '../../support/harness.js';
import { passkeyDoc } from '../../support/passkeys.js';

const PASSWORD = 'user keys test password';
const api = useTestApi();

/** Signs in at /login; where the browser ends up (an account page when it worked). */
async function signIn(email: string, password = PASSWORD): Promise<{ status: number; url: string }> {
  const agent = new HttpUser(api.url);
  const { res, url } = await agent.signIn(await agent.get('/login'), email, password);
  return { status: res.status, url };
}
const signedIn = (r: { status: number; url: string }) => r.status === 200 && new URL(r.url).pathname === '/account';

/** The filters of the `users` commands `run` sends (find, findAndModify, update, delete). */
const userFilters = (run: () => Promise<unknown>) => commandFilters(api.deps.store, ['users'], run);

describe('email and username keys', () => {
  it('finds a user by email and username with `_id` lookups only, and password sign-in works', async () => {
    const { user, email } = await newUser(api.deps, { prefix: 'keys-find', password: PASSWORD });
    const filters = await userFilters(async () => {
      expect((await findUserByEmail(api.deps.store, email.toUpperCase()))?._id).toBe(user._id);
      expect((await findUserByUsername(api.deps.store, user.username))?._id).toBe(user._id);
      expect((await findUserByRef(api.deps.store, email))?._id).toBe(user._id);
      expect(await findUserByEmail(api.deps.store, uniqueEmail('keys-nobody'))).toBeNull();
    });
    expect(filters.length).toBeGreaterThan(0);
    for (const f of filters) expect(Object.keys(f as object)).toEqual(['_id']);
    expect(signedIn(await signIn(email))).toBe(true);
  });

  it('follows an email change: the new email signs in, the old one does not, and another account may take the old one', async () => {
    const { user, email: before } = await newUser(api.deps, { prefix: 'keys-change', password: PASSWORD });
    const after = uniqueEmail('keys-changed');
    await setUserFields(api.deps.store, user._id, { email: after, username: `renamed-${user._id.slice(0, 8).toLowerCase()}` });
    expect(signedIn(await signIn(after))).toBe(true);
    expect(await signIn(before)).toMatchObject({ status: 401 });
    expect(await findUserByUsername(api.deps.store, user.username)).toBeNull();
    expect((await findUserByUsername(api.deps.store, `renamed-${user._id.slice(0, 8).toLowerCase()}`))?._id).toBe(user._id);

    // The old email's key still names the first user; the newcomer takes it over.
    const newcomer = await createUser(api.deps.store, {
      email: before,
      password: PASSWORD,
      name: 'Newcomer',
      username: `newcomer-${newId().slice(0, 8).toLowerCase()}`,
    });
    expect((await findUserByEmail(api.deps.store, before))?._id).toBe(newcomer._id);
    expect((await findUserByEmail(api.deps.store, after))?._id).toBe(user._id);
    expect(signedIn(await signIn(before))).toBe(true);
  });

  it('refuses a taken email even when its key was lost, and the refusal makes the account findable again', async () => {
    const { user, email } = await newUser(api.deps, { prefix: 'keys-lost', password: PASSWORD });
    // A process that died between writing the user and its key leaves this.
    await api.deps.store.userKeys.deleteOne({ _id: `email:${email}` });
    expect(await signIn(email)).toMatchObject({ status: 401 });
    await expect(createUser(api.deps.store, { email, password: PASSWORD, name: 'Copycat' })).rejects.toThrow(`a user with email ${email} already exists`);
    expect((await findUserByEmail(api.deps.store, email))?._id).toBe(user._id);
    expect(signedIn(await signIn(email))).toBe(true);
  });

  it('leaves no key naming a deleted account’s email or username', async () => {
    const { user, email } = await newUser(api.deps, { prefix: 'keys-deleted', password: PASSWORD });
    expect(await deleteUserAccount(api.deps.store, user._id)).not.toBeNull();
    expect(await api.deps.store.userKeys.findOne({ _id: `email:${email}` })).toBeNull();
    expect(await api.deps.store.userKeys.findOne({ _id: `username:${user.username}` })).toBeNull();
    expect(await signIn(email)).toMatchObject({ status: 401 });
  });
});

describe('passkey holders', () => {
  it('finds a user’s passkeys, and none once the last is removed', async () => {
    const { user } = await newUser(api.deps, { prefix: 'keys-passkey', password: PASSWORD });
    expect(await hasPasskey(api.deps.store, user._id)).toBe(false);
    const [a, b] = [passkeyDoc(user._id), passkeyDoc(user._id)];
    await insertPasskey(api.deps.store, a);
    await insertPasskey(api.deps.store, b);
    expect(await hasPasskey(api.deps.store, user._id)).toBe(true);
    expect((await listPasskeys(api.deps.store, user._id)).map((p) => p._id).sort()).toEqual([a._id, b._id].sort());
    expect(await removePasskey(api.deps.store, user._id, a._id)).toBe('removed');
    expect(await hasPasskey(api.deps.store, user._id)).toBe(true);
    expect(await removePasskey(api.deps.store, user._id, b._id)).toBe('removed'); // the password remains
    expect(await hasPasskey(api.deps.store, user._id)).toBe(false);
    expect(await listPasskeys(api.deps.store, user._id)).toEqual([]);
  });

  it('keeps a passkey added while another is removed', async () => {
    for (let round = 0; round < 5; round++) {
      const { user } = await newUser(api.deps, { prefix: 'keys-passkey-race', password: PASSWORD });
      const old = passkeyDoc(user._id);
      await insertPasskey(api.deps.store, old);
      const added = passkeyDoc(user._id);
      await Promise.all([removePasskey(api.deps.store, user._id, old._id), insertPasskey(api.deps.store, added)]);
      expect(await hasPasskey(api.deps.store, user._id)).toBe(true);
      expect((await listPasskeys(api.deps.store, user._id)).map((p) => p._id)).toEqual([added._id]);
    }
  });
});
