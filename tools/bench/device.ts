// `npm run bench -- device [--devices 16] [--seconds 15] [--url http://localhost:3000]`
// against a running Keyflow: N pending device authorizations polled as fast
// as the devices can. A pending poll is answered from the MongoDB projection
// without a Temporal call; the answers are authorization_pending or slow_down.
import { createClient } from '../../lib/store/clients.js';
import { benchSetup, percentile } from './common.js';

export async function deviceBench(argv: string[]): Promise<void> {
  const { count: devices, seconds, base, store } = await benchSetup(argv, 'devices', { count: 16, seconds: 15 });
  try {
    const { client, clientSecret } = await createClient(store, {
      name: 'bench device',
      redirectUris: [{ value: 'https://device.example/cb' }],
      allowedScopes: ['openid'],
      idTokenSignedResponseAlg: 'RS256',
    });
    const auth = `Basic ${Buffer.from(`${client._id}:${clientSecret}`).toString('base64')}`;
    const form = (body: Record<string, string>) => ({
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(body),
    });
    const startLatencies: number[] = [];
    const codes = await Promise.all(
      Array.from({ length: devices }, async () => {
        const t0 = performance.now();
        const res = await fetch(`${base}/api/oauth/device_authorization`, form({ scope: 'openid' }));
        startLatencies.push(performance.now() - t0);
        return ((await res.json()) as { device_code: string }).device_code;
      }),
    );
    const latencies: number[] = [];
    const answers: Record<string, number> = {};
    const end = Date.now() + seconds * 1000;
    const started = Date.now();
    await Promise.all(
      codes.map(async (deviceCode) => {
        while (Date.now() < end) {
          const t0 = performance.now();
          const res = await fetch(`${base}/api/oauth/token`, form({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: deviceCode }));
          const body = (await res.json()) as { error?: string };
          latencies.push(performance.now() - t0);
          answers[body.error ?? 'tokens'] = (answers[body.error ?? 'tokens'] ?? 0) + 1;
        }
      }),
    );
    const elapsed = (Date.now() - started) / 1000;
    const sorted = latencies.sort((a, b) => a - b);
    const result = {
      pollsPerSecond: Math.round(latencies.length / elapsed),
      p50ms: Number(percentile(sorted, 50).toFixed(1)),
      p99ms: Number(percentile(sorted, 99).toFixed(1)),
      answers,
      deviceAuthorizationP50ms: Number(
        percentile(
          startLatencies.sort((a, b) => a - b),
          50,
        ).toFixed(1),
      ),
    };
    process.stdout.write(
      `device polls: ${result.pollsPerSecond}/s  p50 ${result.p50ms} ms  p99 ${result.p99ms} ms  answers ${JSON.stringify(answers)}  (${devices} devices)\n`,
    );
    process.stdout.write(JSON.stringify({ bench: 'device', devices, seconds, ...result }) + '\n');
  } finally {
    await store.close();
  }
}
