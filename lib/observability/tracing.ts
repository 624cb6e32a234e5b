// OpenTelemetry tracing for one process (the api or the worker): spans are
// batched and posted to an OTLP/HTTP collector (protobuf or JSON), W3C trace
// context is read from and written to HTTP and Temporal headers. With no
// exporter configured nothing here runs: no SDK is loaded, and the
// @opentelemetry/api calls elsewhere fall back to its no-op tracer.
import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import type { Config } from '../config/env.js';
import type { Logger } from '../runtime/log.js';

export type TracingConfig = NonNullable<Config['tracing']>;

/** Instrumentation scope of Keyflow's own spans. */
export const TRACER_NAME = 'keyflow';

/** The tracer Keyflow's spans come from (a no-op one while tracing is off). */
export function tracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}

/** Whether a tracer provider is registered in this process (tracing on). */
let tracingOn = false;
export function isTracing(): boolean {
  return tracingOn;
}

export interface Tracing {
  /** The batch processor (the worker hands it to Temporal's workflow span exporter). */
  spanProcessor: import('@opentelemetry/sdk-trace-base').SpanProcessor;
  resource: import('@opentelemetry/resources').Resource;
  /** Exports what is batched, then stops. */
  shutdown(): Promise<void>;
}

/**
 * Starts tracing for `defaultServiceName` (`keyflow-api`, `keyflow-worker`)
 * when configured; null when not. Loaded on demand so that a process without
 * tracing pays nothing for the SDK.
 */
export async function startTracing(config: TracingConfig | null, defaultServiceName: string, log: Logger): Promise<Tracing | null> {
  if (!config) return null;
  const [{ NodeTracerProvider }, base, { Resource }, { W3CTraceContextPropagator }, exporterModule] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/core'),
    config.protocol === 'http/json' ? import('@opentelemetry/exporter-trace-otlp-http') : import('@opentelemetry/exporter-trace-otlp-proto'),
  ]);
  const resource = new Resource({ 'service.name': config.serviceName ?? defaultServiceName, 'service.namespace': 'keyflow' });
  // Headers (OTEL_EXPORTER_OTLP_HEADERS) and timeouts come from the environment, as the exporter reads them.
  const exporter = new exporterModule.OTLPTraceExporter({ url: config.url });
  const spanProcessor = new base.BatchSpanProcessor(exporter);
  const sampler = samplerFor(config, base);
  const provider = new NodeTracerProvider({ resource, sampler, spanProcessors: [spanProcessor] });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  tracingOn = true;
  log.info('tracing on', { exporter: config.url, protocol: config.protocol, sampler: config.sampler });
  return {
    spanProcessor,
    resource,
    shutdown: async () => {
      tracingOn = false;
      await provider.shutdown().catch((err: unknown) => log.warn('tracing: the last spans could not be exported', { error: err as Error }));
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

type SdkTraceBase = typeof import('@opentelemetry/sdk-trace-base');

/** OTEL_TRACES_SAMPLER's names, as the specification defines them. */
function samplerFor(config: TracingConfig, base: SdkTraceBase) {
  const ratio = new base.TraceIdRatioBasedSampler(config.samplerRatio);
  switch (config.sampler) {
    case 'always_on':
      return new base.AlwaysOnSampler();
    case 'always_off':
      return new base.AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_off':
      return new base.ParentBasedSampler({ root: new base.AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new base.ParentBasedSampler({ root: ratio });
    case 'parentbased_always_on':
      return new base.ParentBasedSampler({ root: new base.AlwaysOnSampler() });
  }
}
