// Dynamic client registration (RFC 7591) as a relying party does it here:
// with the apps:write token of a user of the test file's own, made once in a
// beforeAll hook.
import { createPersonalAccessToken } from '../../lib/store/personal-access-tokens.js';
import { newUser } from '../../tools/fixtures/users.js';
import type { Json, TestApi } from './harness.js';

export interface Registration {
  /** POST /api/oauth/register with `metadata`: the status and the JSON answer. */
  register: (metadata: Record<string, unknown>) => Promise<{ status: number; body: Json }>;
  /** The apps:write token it registers with (for the app API too). */
  token: () => string;
}

/** Call at the top level of a test file, after useTestApi. */
export function useRegistration(api: TestApi, prefix = 'registrar'): Registration {
  let token: string | undefined;
  beforeAll(async () => {
    const { user } = await newUser(api.deps, { prefix, password: 'a registration password of enough length' });
    token = (await createPersonalAccessToken(api.deps.store, user._id, { name: 'registration', scope: ['apps:write'], expiresInDays: 1 })).token;
  });
  const current = () => {
    if (!token) throw new Error('the registration token is made in beforeAll: use it in a test or a later hook');
    return token;
  };
  return {
    token: current,
    register: async (metadata) => {
      const res = await fetch(`${api.issuer}/api/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${current()}` },
        body: JSON.stringify(metadata),
      });
      return { status: res.status, body: (await res.json()) as Json };
    },
  };
}
