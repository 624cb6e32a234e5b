// One refresh token presented at the same moment to two api processes (each
// its own server, database connection and Temporal client, on one database):
// rotation is decided by one unique insert, so exactly one presentation
// rotates. Without a retry window the other is reuse and the grant goes; with
// one, the other is taken as a retry and gets a fresh successor, and of the two
// successors only the newer one lives on.
import type { RunningApi } from '../../../api/server.js';
import { startTestApi, type Json } from '../../support/harness.js';
import { newTestRp, runCodeFlow, type TestRp } from '../../support/token-flow.js';
import { getUserinfo, postForm } from '../../support/http.js';

const FAMILIES = 8;

let strict: [RunningApi, RunningApi];
let lenient: [RunningApi, RunningApi];
beforeAll(async () => {
  strict = [await startTestApi({ REFRESH_RETRY_WINDOW_SECONDS: '0' }), await startTestApi({ REFRESH_RETRY_WINDOW_SECONDS: '0' })];
  lenient = [await startTestApi({ REFRESH_RETRY_WINDOW_SECONDS: '30' }), await startTestApi({ REFRESH_RETRY_WINDOW_SECONDS: '30' })];
});
afterAll(() => Promise.all([...(strict ?? []), ...(lenient ?? [])].map((a) => a?.stop())));

const refresh = (on: RunningApi, rp: TestRp, token: string) => postForm(on, '/api/oauth/token', { grant_type: 'refresh_token', refresh_token: token }, rp.auth);

/** `FAMILIES` new families, each first token presented to both apis at once: the two answers of each. */
async function raced(apis: [RunningApi, RunningApi]) {
  const rp = await newTestRp(apis[0]);
  const families = await Promise.all(Array.from({ length: FAMILIES }, () => runCodeFlow(apis[0], rp, 'openid offline_access')));
  return {
    rp,
    answers: await Promise.all(
      families.map(({ tokens }) => Promise.all([refresh(apis[0], rp, tokens.refresh_token), refresh(apis[1], rp, tokens.refresh_token)])),
    ),
  };
}

it('without a retry window: one presentation rotates, the other is reuse, and the grant is revoked', async () => {
  const { rp, answers } = await raced(strict);
  for (const pair of answers) {
    const statuses = pair.map((a) => a.res.status).sort();
    expect(statuses).toEqual([200, 400]);
    const loser = pair.find((a) => a.res.status === 400)!;
    expect([loser.body.error, loser.body.error_description]).toEqual(['invalid_grant', expect.stringMatching(/already used; the grant is revoked/)]);
    const winner: Json = pair.find((a) => a.res.status === 200)!.body;
    expect((await refresh(strict[1], rp, winner.refresh_token)).body.error).toBe('invalid_grant');
    expect((await getUserinfo(strict[0], winner.access_token)).status).toBe(401);
  }
});

it('with a retry window: both get a successor, and only the newer one refreshes; the older one is reuse', async () => {
  const { rp, answers } = await raced(lenient);
  for (const pair of answers) {
    expect(pair.map((a) => [a.res.status, a.body.error])).toEqual([
      [200, undefined],
      [200, undefined],
    ]);
    // Which one is newer is not known to the client: one of the two refreshes, the other is reuse (revoking the grant).
    const [a, b] = pair.map((p) => p.body.refresh_token as string) as [string, string];
    const first = await refresh(lenient[0], rp, a);
    const second = await refresh(lenient[1], rp, b);
    const outcomes = [first, second].map((r) => (r.res.status === 200 ? 'rotated' : r.body.error_description)).sort();
    expect(outcomes.filter((o) => o === 'rotated').length).toBeLessThanOrEqual(1);
    expect(outcomes).toContainEqual(expect.stringMatching(/already used; the grant is revoked/));
  }
});
