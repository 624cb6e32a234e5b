// Port helpers for embedded servers.
import net from 'node:net';

/**
 * Where freePort looks: below Linux's ephemeral range (32768–60999), from which
 * the system also takes the local port of every outgoing connection. A port
 * picked there and bound a little later (a server started after its
 * configuration is written) could meanwhile be taken by any client connection
 * of the machine; below it, only another listener can take it. It also keeps
 * within a PostgreSQL smallint, where Temporal stores its services' ports.
 */
const PICK_FROM = 20_000;
const PICK_TO = 32_767;

/** Whether 127.0.0.1:`port` can be listened on now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A TCP port that was free a moment ago, below the ephemeral range. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = PICK_FROM + Math.floor(Math.random() * (PICK_TO - PICK_FROM + 1));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${PICK_FROM} and ${PICK_TO} after 200 tries`);
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
