// The worker's polls and task completions go through the SDK's native
// connection (Rust), out of reach of the gRPC interceptor that counts the
// JavaScript client's calls. The native side reports each request as a
// `request` / `long_request` counter update tagged with its operation; a
// metrics buffer collects those updates and this module folds them into
// temporal_calls_total.
import { MetricsBuffer } from '@temporalio/worker';
import { countTemporalCall } from '../lib/runtime/metrics.js';

/** Core names its request counters `<prefix>request` (unary) and `<prefix>long_request` (polls). */
const REQUEST_COUNTER = /(^|_)(long_)?request$/;

export interface CoreCallCounter {
  buffer: MetricsBuffer;
  /** Moves the buffered request counts into the process's counters. */
  drain(): void;
}

export function coreCallCounter(): CoreCallCounter {
  // Histograms and gauges share the buffer: drained every second, it stays far below this.
  const buffer = new MetricsBuffer({ maxBufferSize: 100_000 });
  return {
    buffer,
    drain() {
      for (const update of buffer.retrieveUpdates()) {
        if (update.metric.kind !== 'counter' || !REQUEST_COUNTER.test(update.metric.name)) continue;
        const operation = update.attributes.operation;
        if (typeof operation === 'string') countTemporalCall(operation, update.value);
      }
    },
  };
}
