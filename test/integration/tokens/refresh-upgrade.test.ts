// Families from before rotation moved to MongoDB keep working through the
// upgrade. Such a family rotated through its workflow's `rotate` update and
// continued as new every REFRESH_FAMILY_ROTATIONS_PER_RUN rotations: its run
// holds the current hash and the superseded ones, and the earlier api marked
// superseded tokens `superseded` in their documents. That state is written
// here as that api and run left it; today's api and worker then take over:
// the current token rotates through the token endpoint, a token superseded
// before the upgrade is reuse, the family's end deletes every token it had
// (those rotated since included), and an api of the earlier version still
// sending `rotate` updates is answered from the same rotation claims, so that
// no token rotates twice.
import { familyWorkflowId, type RefreshFamilyInput, type RefreshTokenDoc } from '../../../lib/domain/refresh-family.js';
import { startRefreshFamily } from '../../../lib/flows/refresh-family.js';
import { hashSecret, newId, newSecret } from '../../../lib/security/secrets.js';
import { openGrant } from '../../../lib/store/grants.js';
import { findRefreshToken, recordFirstRefreshTokens } from '../../../lib/store/refresh-tokens.js';
import { familyStateQuery } from '../../../workflows/refresh-family.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { useTestApi, eventually } from '../../support/harness.js';
import { newTestRp, type TestRp } from '../../support/token-flow.js';
import { getUserinfo, postForm } from '../../support/http.js';

const api = useTestApi({ REFRESH_RETRY_WINDOW_SECONDS: '0' });

const refresh = (rp: TestRp, token: string) => postForm(api, '/api/oauth/token', { grant_type: 'refresh_token', refresh_token: token }, rp.auth);
const DAY = 86_400_000;

/**
 * A family as an earlier version left it after two rotations and a
 * continue-as-new: tokens t0 and t1 superseded, t2 current, and a run that
 * carries them (started here with the input that continue-as-new gave it).
 */
async function familyFromBefore() {
  const rp = await newTestRp(api);
  const { user } = await newUser(api.deps, { prefix: 'upgrade', password: 'upgrade password 1' });
  const grantId = newId();
  const scope = ['openid', 'offline_access'];
  const expiresAt = new Date(Date.now() + DAY);
  const tokens = [newSecret(), newSecret(), newSecret()];
  const [h0, h1, h2] = tokens.map(hashSecret) as [string, string, string];
  await openGrant(api.deps.store, { _id: grantId, clientId: rp.id, userId: user._id, scope, sid: null, authTime: new Date(), amr: ['pwd'], acr: '1' });
  const doc = (hash: string, status: RefreshTokenDoc['status']): RefreshTokenDoc => ({
    _id: hash,
    grantId,
    clientId: rp.id,
    userId: user._id,
    scope,
    resources: [],
    status,
    auth: { authTime: new Date(), amr: ['pwd'], acr: '1', sid: null },
    issuedAt: new Date(),
    expiresAt,
  });
  await recordFirstRefreshTokens(api.deps.store, [doc(h0, 'superseded'), doc(h1, 'superseded'), doc(h2, 'current')]);
  const input: RefreshFamilyInput = {
    grantId,
    clientId: rp.id,
    userId: user._id,
    scope,
    currentHash: h2,
    expiresAt: expiresAt.getTime(),
    rotationsPerRun: 2,
    superseded: [h0, h1],
    rotations: 2,
    lastRotation: { presentedHash: h1, at: Date.now() - 60_000 },
  };
  await startRefreshFamily({ client: api.deps.temporal.client, taskQueue: api.deps.config.temporal.taskQueue, callTimeoutMs: 10_000 }, input);
  const handle = api.deps.temporal.client.workflow.getHandle(familyWorkflowId(grantId));
  return { rp, tokens, hashes: [h0, h1, h2], handle };
}

describe('a family from before rotation moved to MongoDB', () => {
  it('rotates its current token through the api, takes a token it superseded before as reuse, and deletes every token it had as it ends', async () => {
    const { rp, tokens, hashes, handle } = await familyFromBefore();
    const first = await refresh(rp, tokens[2]!);
    expect([first.res.status, first.body.error]).toEqual([200, undefined]);
    const second = await refresh(rp, first.body.refresh_token);
    expect([second.res.status, second.body.error]).toEqual([200, undefined]);
    expect((await getUserinfo(api, second.body.access_token)).status).toBe(200);
    // The rotations did not go through the family: it counts only those of its runs before.
    expect(await handle.query(familyStateQuery)).toMatchObject({ state: 'active', rotations: 2 });

    // t1 was superseded by the family before the upgrade: reuse, and the grant goes.
    const reuse = await refresh(rp, tokens[1]!);
    expect([reuse.res.status, reuse.body.error]).toEqual([400, 'invalid_grant']);
    expect(reuse.body.error_description).toMatch(/already used; the grant is revoked/);
    expect((await refresh(rp, second.body.refresh_token)).body.error).toBe('invalid_grant');
    expect((await getUserinfo(api, second.body.access_token)).status).toBe(401);

    // The family heard of it and ended, deleting the tokens it knew and those rotated since.
    expect(await handle.result()).toBe('revoked');
    const all = [...hashes, hashSecret(first.body.refresh_token), hashSecret(second.body.refresh_token)];
    for (const hash of all) expect(await findRefreshToken(api.deps.store, hash)).toBeNull();
  });

  it('answers a rotate update from an api of the earlier version from the same claims: a token today’s api rotated is reuse there', async () => {
    const { rp, tokens, hashes, handle } = await familyFromBefore();
    const rotated = await refresh(rp, tokens[2]!);
    expect(rotated.res.status).toBe(200);
    // The earlier api presents t2 again through the family's update, as it did before the upgrade.
    expect(await handle.executeUpdate('rotate', { args: [{ presentedHash: hashes[2], newHash: hashSecret(newSecret()), retryWindowMs: 0 }] })).toEqual({
      status: 'reused',
    });
    expect(await handle.result()).toBe('revoked');
    expect((await refresh(rp, rotated.body.refresh_token)).body.error).toBe('invalid_grant');
    expect((await getUserinfo(api, rotated.body.access_token)).status).toBe(401);
  });

  it('and the other way round: a token the earlier api rotated through the update is reuse at today’s api', async () => {
    const { rp, tokens, hashes, handle } = await familyFromBefore();
    const successor = newSecret();
    expect(await handle.executeUpdate('rotate', { args: [{ presentedHash: hashes[2], newHash: hashSecret(successor), retryWindowMs: 0 }] })).toEqual({
      status: 'rotated',
    });
    const reuse = await refresh(rp, tokens[2]!);
    expect([reuse.res.status, reuse.body.error]).toEqual([400, 'invalid_grant']);
    expect(reuse.body.error_description).toMatch(/already used/);
    await eventually(async () => expect(await handle.query(familyStateQuery)).toMatchObject({ state: 'revoked' }));
  });
});
