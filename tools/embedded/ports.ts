// Port helpers for embedded servers.
import net from 'node:net';

/** A TCP port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export function isPortOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Resolves once something accepts connections on the port; rejects on timeout or when `abort` settles first. */
export async function waitForPort(port: number, timeoutMs: number, abort?: Promise<unknown>): Promise<void> {
  let aborted = false;
  void abort?.then(() => (aborted = true));
  const deadline = Date.now() + timeoutMs;
  while (!(await isPortOpen(port))) {
    if (aborted) throw new Error(`the process meant to listen on port ${port} exited`);
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port} after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
