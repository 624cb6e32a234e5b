// Connections to a Temporal that asks for mTLS or an API key. The dev server
// speaks neither, so the test puts a TLS-terminating proxy in front of it that
// requires a client certificate from a throwaway CA (made here with the
// openssl CLI); the API key is checked by a small HTTP/2 endpoint that answers
// the gRPC health check only to the right bearer key. The api's client and
// health probe, the worker's native connection and the CLI are each
// connected through the configuration, as in production.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http2 from 'node:http2';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { NativeConnection } from '@temporalio/worker';
import type { Config } from '../../../lib/config/env.js';
import { checkTemporal, lazyTemporalClient, temporalConnectionOptions } from '../../../lib/temporal/connection.js';
import { testConfig } from '../../support/harness.js';
import { runCli } from '../../support/cli.js';

let dir: string;
const file = (name: string) => path.join(dir, name);
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });

/** A P-256 key and a certificate for `cn` signed by the test CA, with the given extensions. */
function issue(name: string, cn: string, extensions: string): void {
  openssl(
    'req',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
    '-subj',
    `/CN=${cn}`,
  );
  fs.writeFileSync(file(`${name}.ext`), extensions);
  openssl(
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-set_serial',
    `0x${Date.now().toString(16)}`,
    '-days',
    '1',
    '-out',
    `${name}.pem`,
    '-extfile',
    `${name}.ext`,
  );
}

let mtlsProxy: tls.Server;
let mtlsPort: number;
/** Common names of the client certificates the proxy accepted. */
const presented: string[] = [];
let keyServer: http2.Http2SecureServer;
let keyPort: number;
/** Authorization headers the API-key endpoint received. */
const authorizations: (string | undefined)[] = [];
const API_KEY = 'test-temporal-api-key';

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyflow-temporal-tls-'));
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '1',
    '-subj',
    '/CN=Keyflow test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  issue('server', 'localhost', 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost\n');
  issue('client', 'keyflow-test-client', 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n');
  const serverTls = { key: fs.readFileSync(file('server.key')), cert: fs.readFileSync(file('server.pem')), ALPNProtocols: ['h2'] };

  // mTLS in front of the dev server: no client certificate from the test CA, no connection.
  const [temporalHost, temporalPort] = process.env.TEMPORAL_ADDRESS!.split(':');
  mtlsProxy = tls.createServer({ ...serverTls, ca: fs.readFileSync(file('ca.pem')), requestCert: true, rejectUnauthorized: true }, (socket) => {
    presented.push(String(socket.getPeerCertificate().subject?.CN));
    const upstream = net.connect(Number(temporalPort), temporalHost);
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  mtlsProxy.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => mtlsProxy.listen(0, '127.0.0.1', resolve));
  mtlsPort = (mtlsProxy.address() as net.AddressInfo).port;

  // An endpoint that serves the health check (SERVING) to the right bearer key, UNAUTHENTICATED to anything else.
  keyServer = http2.createSecureServer(serverTls);
  keyServer.on('stream', (stream, headers) => {
    stream.on('error', () => {});
    authorizations.push(headers.authorization);
    if (headers.authorization !== `Bearer ${API_KEY}`) {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '16', 'grpc-message': 'bad API key' }, { endStream: true });
      return;
    }
    stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    // HealthCheckResponse { status: SERVING }: field 1, varint 1, in one uncompressed gRPC frame.
    stream.end(Buffer.from([0, 0, 0, 0, 2, 0x08, 0x01]));
    stream.resume();
  });
  await new Promise<void>((resolve) => keyServer.listen(0, '127.0.0.1', resolve));
  keyPort = (keyServer.address() as net.AddressInfo).port;
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => mtlsProxy.close(resolve));
  await new Promise((resolve) => keyServer.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

const mtlsEnv = () => ({
  TEMPORAL_ADDRESS: `127.0.0.1:${mtlsPort}`,
  TEMPORAL_TLS_CA: file('ca.pem'),
  TEMPORAL_TLS_CERT: file('client.pem'),
  TEMPORAL_TLS_KEY: file('client.key'),
  // The certificate names localhost; the address is an IP.
  TEMPORAL_TLS_SERVER_NAME: 'localhost',
});
const temporalOf = (env: Record<string, string>): Config['temporal'] => testConfig(env).temporal;

describe('a Temporal that requires a client certificate', () => {
  it("the api's client and its health probe present the configured certificate and reach Temporal", async () => {
    const handle = lazyTemporalClient({ temporal: temporalOf(mtlsEnv()) });
    try {
      const before = presented.length;
      await checkTemporal(handle, 10_000);
      const { namespaceInfo } = await handle.connection.workflowService.describeNamespace({ namespace: 'default' });
      expect(namespaceInfo?.name).toBe('default');
      expect(presented.slice(before)).toContain('keyflow-test-client');
    } finally {
      await handle.close();
    }
  }, 30_000);

  it("the worker's native connection presents it too", async () => {
    const before = presented.length;
    const connection = await NativeConnection.connect(temporalConnectionOptions(temporalOf(mtlsEnv())));
    try {
      expect((await connection.workflowService.getSystemInfo({})).capabilities).toBeDefined();
      expect(presented.slice(before)).toContain('keyflow-test-client');
    } finally {
      await connection.close();
    }
  }, 30_000);

  it('the CLI connects through it (flows list)', async () => {
    const { code, stdout, stderr } = await runCli(['flows', 'list'], mtlsEnv());
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(Array.isArray(JSON.parse(stdout))).toBe(true);
  }, 60_000);

  it('without the client certificate nothing gets through', async () => {
    // Empty counts as unset: TLS with the CA, no client certificate.
    const handle = lazyTemporalClient({ temporal: temporalOf({ ...mtlsEnv(), TEMPORAL_TLS_CERT: '', TEMPORAL_TLS_KEY: '' }) });
    const before = presented.length;
    try {
      await expect(checkTemporal(handle, 5_000)).rejects.toThrow();
      expect(presented.length).toBe(before); // refused in the handshake
    } finally {
      await handle.close();
    }
  }, 30_000);
});

describe('a Temporal that requires an API key', () => {
  const keyEnv = (apiKey: string) => ({
    TEMPORAL_ADDRESS: `127.0.0.1:${keyPort}`,
    TEMPORAL_TLS_CA: file('ca.pem'),
    TEMPORAL_TLS_SERVER_NAME: 'localhost',
    TEMPORAL_API_KEY: apiKey,
  });

  it('the health probe sends the configured key as a bearer token, over TLS', async () => {
    const handle = lazyTemporalClient({ temporal: temporalOf(keyEnv(API_KEY)) });
    try {
      await checkTemporal(handle, 10_000);
      expect(authorizations.at(-1)).toBe(`Bearer ${API_KEY}`);
    } finally {
      await handle.close();
    }
  }, 30_000);

  it('a wrong key is refused', async () => {
    const handle = lazyTemporalClient({ temporal: temporalOf(keyEnv('not-the-key')) });
    try {
      await expect(checkTemporal(handle, 5_000)).rejects.toThrow();
      expect(authorizations.at(-1)).toBe('Bearer not-the-key');
    } finally {
      await handle.close();
    }
  }, 30_000);
});
