// Every flow's signals, updates and queries, each defined once: the workflow
// sets its handlers with these, and its client (lib/flows) sends them, so the
// two cannot disagree on a name or a type. A message's name is part of running
// workflows and recorded histories: it is never changed. Pure (definitions
// only): imported by workflow code too.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { FamilyState, Revocation } from '../domain/refresh-family.js';

// RefreshFamily (workflows/refresh-family.ts).
/** Revokes the family: answers once the grant is revoked and its tokens deleted. */
export const revokeFamilyUpdate = defineUpdate<{ revoked: boolean }, [Revocation]>('revoke');
/** Revokes the family without waiting for the worker (a revocation never hangs on it). */
export const revokeFamilySignal = defineSignal<[Revocation]>('revokeGrant');
/** The family's state, for an SRE and the CLI. */
export const familyStateQuery = defineQuery<FamilyState>('state');
