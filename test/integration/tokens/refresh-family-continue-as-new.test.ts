// A RefreshFamily continues as new every REFRESH_FAMILY_ROTATIONS_PER_RUN
// rotations (3 here, on an api and database of its own, with its own worker),
// and rotation, expiry and reuse detection work across its runs.
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import path from 'node:path';
import type { RunningApi } from '../../../api/server.js';
import { PROJECT_ROOT } from '../../../tools/embedded/servers.js';
import { familyWorkflowId } from '../../../lib/domain/refresh-family.js';
import { familyStateQuery } from '../../../workflows/refresh-family.js';
import { eventually, startTestApi, type Json } from '../../support/harness.js';
import { expectFamilyRevoked, newTestRp, runCodeFlow, type TestRp } from '../../support/token-flow.js';
import { getUserinfo, jwtClaims, postForm } from '../../support/http.js';
import { testDatabase } from '../../support/database.js';

let api: RunningApi;
beforeAll(async () => {
  api = await startTestApi({ REFRESH_FAMILY_ROTATIONS_PER_RUN: '3', ...testDatabase('x_refresh_runs').env });
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') }); // the replay worker below: warnings only
  } catch {
    // A Runtime already exists in this jest process.
  }
});
afterAll(() => api.stop());

const userinfo = (accessToken: string) => getUserinfo(api, accessToken);
const refresh = (rp: TestRp, token: string) => postForm(api, '/api/oauth/token', { grant_type: 'refresh_token', refresh_token: token }, rp.auth);

/** A new family and `n` rotations: every token response, the first one's included. */
async function familyRotated(n: number) {
  const rp = await newTestRp(api);
  const { tokens } = await runCodeFlow(api, rp, 'openid offline_access');
  // The family's absolute expiry, as introspection shows it before any rotation.
  const { exp } = (await postForm(api, '/api/oauth/introspect', { token: tokens.refresh_token, token_type_hint: 'refresh_token' }, rp.auth)).body;
  const responses: Json[] = [tokens];
  for (let i = 0; i < n; i++) {
    const r = await refresh(rp, responses.at(-1).refresh_token);
    expect([i, r.res.status]).toEqual([i, 200]);
    responses.push(r.body);
  }
  const workflowId = familyWorkflowId(jwtClaims(tokens.access_token).grant_id);
  return { rp, responses, exp: exp as number, workflowId, handle: api.deps.temporal.client.workflow.getHandle(workflowId) };
}

/** Every run of a workflow id, oldest first (Temporal's visibility catches up within moments). */
async function runsOf(workflowId: string): Promise<WorkflowExecutionInfo[]> {
  const runs: WorkflowExecutionInfo[] = [];
  for await (const wf of api.deps.temporal.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push(wf);
  return runs.sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
}

describe('RefreshFamily across runs', () => {
  it('rotates 10 times over four runs, keeping its count and absolute expiry, and each run replays deterministically', async () => {
    const { rp, responses, exp, workflowId, handle } = await familyRotated(10);
    const newest = responses.at(-1);
    expect((await userinfo(newest.access_token)).status).toBe(200);

    // Runs 1-3 each took 3 rotations and continued as new; the 4th runs.
    await eventually(async () => {
      const runs = await runsOf(workflowId);
      expect(runs.map((r) => r.status.name)).toEqual(['CONTINUED_AS_NEW', 'CONTINUED_AS_NEW', 'CONTINUED_AS_NEW', 'RUNNING']);
    }, 15_000);
    expect(await handle.query(familyStateQuery)).toMatchObject({ state: 'active', rotations: 10 });
    const first = (await postForm(api, '/api/oauth/introspect', { token: responses[0].refresh_token, token_type_hint: 'refresh_token' }, rp.auth)).body;
    expect(first).toEqual({ active: false }); // superseded
    const current = (await postForm(api, '/api/oauth/introspect', { token: newest.refresh_token, token_type_hint: 'refresh_token' }, rp.auth)).body;
    expect(current).toMatchObject({ active: true, exp });

    // The first run's history (the version marker, three rotations, continue-as-new) replays with this code.
    const [firstRun] = await runsOf(workflowId);
    const history = await api.deps.temporal.client.workflow.getHandle(workflowId, firstRun!.runId).fetchHistory();
    const events = JSON.stringify(history);
    expect(events).toContain('EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW');
    expect(events).not.toContain(responses[0].refresh_token); // hashes only, never tokens
    await Worker.runReplayHistory({ workflowsPath: path.join(PROJECT_ROOT, 'dist/workflows/index.js'), replayName: 'refresh-family-can' }, history, workflowId);
  }, 120_000);

  it('revokes the grant when a token superseded runs ago comes back', async () => {
    const { rp, responses } = await familyRotated(10);
    const newest = responses.at(-1);
    // Superseded by the 2nd rotation, in the first run: older than what the current run carries.
    const reuse = await refresh(rp, responses[1].refresh_token);
    expect([reuse.res.status, reuse.body.error]).toEqual([400, 'invalid_grant']);
    expect(reuse.body.error_description).toMatch(/already used/);
    expect((await refresh(rp, newest.refresh_token)).body.error).toBe('invalid_grant');
    expect((await userinfo(newest.access_token)).status).toBe(401);
    await expectFamilyRevoked(api, newest.access_token);
  }, 120_000);

  it('revokes the grant when a token superseded in the previous run comes back (the family carries it)', async () => {
    const { rp, responses, workflowId } = await familyRotated(4);
    await eventually(async () => expect((await runsOf(workflowId)).map((r) => r.status.name)).toEqual(['CONTINUED_AS_NEW', 'RUNNING']), 15_000);
    // Superseded by the 3rd rotation, the last of the first run.
    const reuse = await refresh(rp, responses[2].refresh_token);
    expect([reuse.res.status, reuse.body.error]).toEqual([400, 'invalid_grant']);
    expect(reuse.body.error_description).toMatch(/already used/);
    await expectFamilyRevoked(api, responses[0].access_token);
    // The workflow's own revocation reached this api's database: the access token is refused.
    expect((await userinfo(responses.at(-1).access_token)).status).toBe(401);
    expect((await refresh(rp, responses.at(-1).refresh_token)).body.error).toBe('invalid_grant');
  }, 120_000);
});
