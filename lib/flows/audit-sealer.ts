// The AuditSealer flow's client: the worker makes sure its deployment's sealer
// runs (started once; a running one takes the worker's settings), and `audit verify`
// asks it for the chain's head as Temporal knows it.
import { WorkflowNotFoundError } from '@temporalio/client';
import { auditSealerWorkflowId, type AuditSealerInput, type AuditSealerSettings, type ChainHead } from '../model/audit-sealer.js';
import { auditHeadQuery, auditSettingsSignal } from '../temporal/flow-messages.js';
import type { FlowClient } from './flow-client.js';

/** Starts the sealer, or hands a running one these settings (signal-with-start: one call, no race between workers). */
export async function ensureAuditSealer(flows: FlowClient, settings: AuditSealerSettings): Promise<void> {
  await flows.client.workflow.signalWithStart('auditSealer', {
    workflowId: auditSealerWorkflowId(flows.taskQueue),
    taskQueue: flows.taskQueue,
    args: [{ ...settings, head: null } satisfies AuditSealerInput],
    signal: auditSettingsSignal,
    signalArgs: [settings],
  });
}

/** The newest batch the sealer has sealed; null when it has sealed none or does not run. */
export async function sealerHead(flows: FlowClient): Promise<ChainHead | null> {
  try {
    return await flows.client.workflow.getHandle(auditSealerWorkflowId(flows.taskQueue)).query(auditHeadQuery);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
}
