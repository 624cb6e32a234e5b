// A receiver as strict as Python's http.server: a raw TCP server that reads the
// request head, then exactly Content-Length bytes of body — none without that
// header, whatever Transfer-Encoding says — and answers 200. What a sender
// streams in chunks without a length, it reads as an empty body.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { arrivals, type Arrivals } from './arrivals.js';

export interface RawRequest {
  method: string;
  path: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** Exactly the Content-Length bytes after the head (empty without the header). */
  body: string;
}

export interface RawReceiver {
  /** Base URL, e.g. http://127.0.0.1:PORT */
  url: string;
  received: Arrivals<RawRequest>;
  close(): Promise<void>;
}

export async function startRawReceiver(): Promise<RawReceiver> {
  const received = arrivals<RawRequest>();
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = Buffer.alloc(0);
    let head: Omit<RawRequest, 'body'> | null = null;
    let bodyStart = 0;
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (!head) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const [requestLine = '', ...lines] = buffered.subarray(0, end).toString('latin1').split('\r\n');
        const [method = '', path = ''] = requestLine.split(' ');
        const headers: Record<string, string> = {};
        for (const line of lines) {
          const colon = line.indexOf(':');
          if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        }
        head = { method, path, headers };
        bodyStart = end + 4;
      }
      const length = Number(head.headers['content-length'] ?? 0);
      if (buffered.length - bodyStart < length) return;
      received.push({ ...head, body: buffered.subarray(bodyStart, bodyStart + length).toString('utf8') });
      socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
