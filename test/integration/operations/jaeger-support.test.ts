// test/support/jaeger.ts against the Jaeger binary the bootstrap builds: two
// spans posted as OTLP/HTTP JSON (what an OpenTelemetry exporter sends) come
// back through the query API with their service, parent, name and attributes.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../../lib/runtime/paths.js';
import { useJaeger } from '../../support/jaeger.js';

const jaeger = useJaeger();

const attribute = (key: string, value: string) => ({ key, value: { stringValue: value } });

describe('Jaeger for the tests', () => {
  it('stores the spans posted to its OTLP endpoint and answers for them by service and by trace id', async () => {
    const traceId = randomBytes(16).toString('hex');
    const [parent, child] = [randomBytes(8).toString('hex'), randomBytes(8).toString('hex')];
    const now = BigInt(Date.now()) * 1_000_000n;
    const span = (spanId: string, name: string, extra: object) => ({
      traceId,
      spanId,
      name,
      startTimeUnixNano: String(now),
      endTimeUnixNano: String(now + 5_000_000n),
      ...extra,
    });
    const res = await fetch(`${jaeger.otlpEndpoint}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        resourceSpans: [
          {
            resource: { attributes: [attribute('service.name', 'jaeger-support-test')] },
            scopeSpans: [
              {
                scope: { name: 'jaeger-support-test' },
                spans: [
                  span(parent, 'GET /probe', { kind: 2, attributes: [attribute('http.route', '/probe')] }),
                  span(child, 'mongodb.find', { kind: 3, parentSpanId: parent }),
                ],
              },
            ],
          },
        ],
      }),
    });
    expect(res.status).toBe(200);

    const found = await jaeger.waitForTrace((t) => t.traceID === traceId && t.spans.length === 2, 10_000, 'jaeger-support-test');
    expect(await jaeger.services()).toContain('jaeger-support-test');
    const byName = new Map(found.spans.map((s) => [s.operationName, s]));
    const root = byName.get('GET /probe')!;
    expect(root.process.serviceName).toBe('jaeger-support-test');
    expect(root.tags).toContainEqual(expect.objectContaining({ key: 'http.route', value: '/probe' }));
    expect(root.tags).toContainEqual(expect.objectContaining({ key: 'span.kind', value: 'server' }));
    expect(byName.get('mongodb.find')!.references).toEqual([{ refType: 'CHILD_OF', traceID: traceId, spanID: parent }]);
    expect((await jaeger.trace(traceId)).spans).toHaveLength(2);
    await expect(jaeger.trace(randomBytes(16).toString('hex'))).rejects.toThrow(/has no trace/);
  });

  it('is the version toolchain.json pins: the one tools/jaeger builds', () => {
    const read = (f: string) => fs.readFileSync(path.join(PROJECT_ROOT, f), 'utf8');
    const { jaeger: pinned } = JSON.parse(read('tools/scripts/toolchain.json')) as { jaeger: { module: string; version: string; dir: string } };
    const goMod = read(path.join(pinned.dir, 'go.mod'));
    expect(goMod).toMatch(/^tool github\.com\/jaegertracing\/jaeger\/cmd\/jaeger$/m);
    expect(goMod).toContain(`\t${pinned.module} ${pinned.version}`);
  });
});
