// An HTTP server of a test (a receiver, a fake provider, an RP's callback) on
// 127.0.0.1 and a free port, closed together with its open connections so
// that no keep-alive socket holds the test process.
import type http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LocalServer {
  port: number;
  /** `http://127.0.0.1:<port>` */
  url: string;
  close: () => Promise<void>;
}

export async function listenLocally(server: http.Server): Promise<LocalServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
