// The TLS-terminating proxy of the production topology: Debian's nginx with a
// certificate for localhost made here (openssl), spreading requests over the
// api processes and writing X-Forwarded-For from the address that connected to
// it — the one header the apis believe, from this proxy alone (TRUSTED_PROXIES).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { spawnManaged, type ManagedProcess, type SpawnOptions } from '../embedded/process.js';
import { waitForPort } from '../embedded/ports.js';

export interface RunningNginx {
  process: ManagedProcess;
  /** The PEM certificate clients trust (self-signed, for localhost and 127.0.0.1). */
  certificate: string;
}

/** A self-signed certificate for localhost in `dir` (server.crt, server.key), made unless it is there. */
export function makeCertificate(dir: string): string {
  // The private key's folder: this user's alone.
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const crt = path.join(dir, 'server.crt');
  if (fs.existsSync(crt)) return crt;
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ].concat(['-keyout', path.join(dir, 'server.key'), '-out', crt]),
    { stdio: 'pipe' },
  );
  return crt;
}

/** nginx on 127.0.0.1:`port` (TLS) in front of the apis on `upstreams` (loopback ports). */
export async function startNginx(dir: string, port: number, upstreams: number[], output: SpawnOptions['output']): Promise<RunningNginx> {
  const certificate = makeCertificate(dir);
  const conf = path.join(dir, 'nginx.conf');
  fs.writeFileSync(
    conf,
    `worker_processes 1;
pid ${dir}/nginx.pid;
error_log stderr warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream keyflow_api {
${upstreams.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=5s;`).join('\n')}
  }
  server {
    listen 127.0.0.1:${port} ssl http2;
    ssl_certificate ${dir}/server.crt;
    ssl_certificate_key ${dir}/server.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    location / {
      proxy_pass http://keyflow_api;
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      # The client's address as nginx saw it, replacing whatever the client sent.
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_set_header X-Forwarded-Proto https;
      # An api that is down (killed, restarting) is skipped: the request goes to the next.
      proxy_next_upstream error timeout http_502;
      proxy_connect_timeout 2s;
    }
  }
}
`,
  );
  const proc = spawnManaged('nginx', 'nginx', ['-c', conf, '-p', dir, '-e', 'stderr', '-g', 'daemon off;'], { output, cwd: dir });
  await waitForPort(port, 10_000, proc.exited);
  return { process: proc, certificate };
}
