// The TLS front of the FAPI 2.0 plans' Keyflow. FAPI 2.0 (§5.2.1, RFC 9325)
// allows TLS 1.2 only with the BCP 195 cipher suites, and the suite checks
// the server it talks to; the kit's nginx offers more. This front, on the
// kit's certificate, offers TLS 1.3 and TLS 1.2 with those suites only, and
// passes each request to the api on loopback with the headers a proxy adds
// (the api trusts loopback proxies: TRUSTED_PROXIES=loopback).
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';

/** RFC 9325 §4.2: the TLS 1.2 cipher suites recommended (OpenSSL names; the certificate is RSA, the ECDSA ones are for another). */
export const BCP195_TLS12_CIPHERS = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'DHE-RSA-AES128-GCM-SHA256',
  'DHE-RSA-AES256-GCM-SHA384',
];

export interface TlsFront {
  close(): Promise<void>;
}

/** Listens on 127.0.0.1:`port` with the certificate in `tlsDir` (server.crt, server.key), forwarding to 127.0.0.1:`target`. */
export async function startTlsFront(tlsDir: string, port: number, target: number): Promise<TlsFront> {
  const server = https.createServer(
    {
      cert: fs.readFileSync(path.join(tlsDir, 'server.crt')),
      key: fs.readFileSync(path.join(tlsDir, 'server.key')),
      minVersion: 'TLSv1.2',
      ciphers: BCP195_TLS12_CIPHERS.join(':'),
      honorCipherOrder: true,
    },
    (req, res) => {
      const upstream = http.request(
        {
          host: '127.0.0.1',
          port: target,
          method: req.method,
          path: req.url,
          headers: {
            ...req.headers,
            'x-forwarded-for': req.socket.remoteAddress ?? '',
            'x-forwarded-proto': 'https',
            'x-forwarded-host': req.headers.host ?? '',
          },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      req.pipe(upstream);
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return { close: () => new Promise((resolve) => server.close(() => resolve())) };
}
