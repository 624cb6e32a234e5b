// Flows as Temporal's visibility store lists them, filtered by the search
// attributes every Keyflow workflow sets (the operator CLI's `flows list`).
import type { Client } from '@temporalio/client';
import { SearchAttributes } from '../temporal/search-attributes.js';

export interface FlowFilter {
  clientId?: string;
  userId?: string;
  /** Finished flows too (default: running ones only). */
  all?: boolean;
}

export interface FlowSummary {
  workflowId: string;
  type: string;
  status: string;
  state: string | null;
  clientId: string | null;
  userId: string | null;
  startTime: Date;
}

/** Most flows one listing returns. */
const LIST_LIMIT = 1000;

/** The visibility query of a filter; values are quoted with quotes and backslashes dropped. */
function visibilityQuery(filter: FlowFilter): string {
  const quote = (v: string) => `'${v.replace(/[\\']/g, '')}'`;
  const filters = [filter.all ? '' : "ExecutionStatus = 'Running'"];
  if (filter.clientId) filters.push(`KeyflowClientId = ${quote(filter.clientId)}`);
  if (filter.userId) filters.push(`KeyflowUserId = ${quote(filter.userId)}`);
  return filters.filter(Boolean).join(' AND ');
}

/** The flows matching a filter, at most LIST_LIMIT. */
export async function listFlows(temporal: Client, filter: FlowFilter): Promise<FlowSummary[]> {
  const query = visibilityQuery(filter);
  const out: FlowSummary[] = [];
  for await (const wf of temporal.workflow.list(query ? { query } : {})) {
    out.push({
      workflowId: wf.workflowId,
      type: wf.type,
      status: wf.status.name,
      state: wf.typedSearchAttributes.get(SearchAttributes.state) ?? null,
      clientId: wf.typedSearchAttributes.get(SearchAttributes.clientId) ?? null,
      userId: wf.typedSearchAttributes.get(SearchAttributes.userId) ?? null,
      startTime: wf.startTime,
    });
    if (out.length >= LIST_LIMIT) break;
  }
  return out;
}

/** A flow as the operator CLI prints it (`flows list`), in the API's snake_case. */
export const flowJson = (f: FlowSummary) => ({
  workflow_id: f.workflowId,
  type: f.type,
  status: f.status,
  state: f.state,
  client_id: f.clientId,
  user_id: f.userId,
  start_time: f.startTime.toISOString(),
});

/** How many flows a visibility query matches (e.g. a benchmark's deliveries by state). */
export async function countFlows(temporal: Client, query: string): Promise<number> {
  return (await temporal.workflow.count(query)).count;
}
