// The worker's part of a trace: Temporal's OpenTelemetry interceptors continue
// the context a client call carried in its headers into the workflow (spans
// made in the workflow sandbox leave it through a sink, exported by this
// process) and into each activity, whose MongoDB and HTTP spans become its
// children. Only when tracing is on: otherwise the bundle and the activities
// are as without it.
import { createRequire } from 'node:module';
import type { WorkerOptions } from '@temporalio/worker';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/worker/index.js';
import type { Tracing } from '../lib/observability/tracing.js';

const require = createRequire(import.meta.url);

/** The workflow interceptors tracing adds: they go into the workflow bundle (workflow-bundle.ts). */
export function tracingWorkflowModules(tracing: Tracing | null): string[] {
  return tracing ? [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')] : [];
}

export function tracingWorkerOptions(tracing: Tracing | null): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  if (!tracing) return {};
  return {
    interceptors: {
      activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })],
    },
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}
