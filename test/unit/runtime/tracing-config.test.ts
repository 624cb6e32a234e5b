// Tracing's configuration from the standard OTEL_* variables: off unless an
// exporter is configured, OTLP/HTTP only (protobuf or JSON), the traces
// endpoint over the base one, and one-line refusals of what cannot work.
import { parseConfig } from '../../../lib/config/env.js';

const tracing = (env: Record<string, string>) => {
  const result = parseConfig(env, '/srv/keyflow');
  return result.ok ? result.config.tracing : result.errors;
};

describe('tracing configuration', () => {
  it('is off with no exporter, with OTEL_TRACES_EXPORTER=none and with OTEL_SDK_DISABLED=true', () => {
    expect(tracing({})).toBeNull();
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeNull();
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBeNull();
  });

  it('posts to <base>/v1/traces as protobuf by default, with the spec sampler and no client address', () => {
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      serviceName: undefined,
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
      clientAddress: false,
    });
    expect(tracing({ OTEL_TRACES_EXPORTER: 'otlp' })).toMatchObject({ url: 'http://localhost:4318/v1/traces' });
  });

  it('takes the traces endpoint and protocol over the general ones, and the sampler, name and opt-in as given', () => {
    expect(
      tracing({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/otlp/v1/traces',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
        OTEL_SERVICE_NAME: 'idp-api',
        TRACE_CLIENT_ADDRESS: 'on',
      }),
    ).toEqual({
      url: 'https://traces.example/otlp/v1/traces',
      protocol: 'http/json',
      serviceName: 'idp-api',
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
      clientAddress: true,
    });
  });

  it('refuses gRPC, a non-http endpoint, an unknown sampler and a ratio outside 0..1, each in one line', () => {
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toEqual([
      expect.stringMatching(/^OTEL_EXPORTER_OTLP_PROTOCOL: must be http\/protobuf or http\/json .*\(got "grpc"\)$/),
    ]);
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://c:4317' })).toEqual([expect.stringMatching(/^OTEL_EXPORTER_OTLP_ENDPOINT: must be an http/)]);
    expect(tracing({ OTEL_TRACES_SAMPLER: 'sometimes' })).toEqual([expect.stringMatching(/^OTEL_TRACES_SAMPLER: /)]);
    expect(tracing({ OTEL_TRACES_SAMPLER_ARG: '2' })).toEqual([expect.stringMatching(/^OTEL_TRACES_SAMPLER_ARG: /)]);
  });
});
