// The peer's accounts: the claims Keyflow's UserInfo releases for `profile` and
// `email` (name, preferred_username, email, email_verified), kept in memory or
// in the peer's MongoDB database so that the store run reads its accounts from
// the store as Keyflow reads its users.

export interface AccountClaims {
  [claim: string]: unknown;
  sub: string;
  name: string;
  preferred_username: string;
  email: string;
  email_verified: boolean;
}

export interface AccountStore {
  save(claims: AccountClaims): Promise<void>;
  find(id: string): Promise<AccountClaims | undefined>;
}

/** The claims of the benchmark account `id` (a virtual RP's user). */
export function benchAccount(id: string): AccountClaims {
  return { sub: id, name: `Bench ${id}`, preferred_username: id, email: `${id}@example.com`, email_verified: true };
}

export function memoryAccounts(): AccountStore {
  const accounts = new Map<string, AccountClaims>();
  return {
    save(claims) {
      accounts.set(claims.sub, claims);
      return Promise.resolve();
    },
    find(id) {
      return Promise.resolve(accounts.get(id));
    },
  };
}
