// A pool of worker threads for the noble ML-DSA-65 fallback: a noble signature
// takes ~5 ms of pure JavaScript, which would stall the event loop; in workers
// it uses every core. (The native implementation already runs on libuv's pool.)
import os from 'node:os';
import { Worker } from 'node:worker_threads';

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
let sign;
const keys = new Map();
parentPort.on('message', async (m) => {
  try {
    sign ??= (await import(${JSON.stringify(import.meta.resolve('@noble/post-quantum/ml-dsa.js'))})).ml_dsa65;
    if (!keys.has(m.keyId)) keys.set(m.keyId, sign.keygen(new Uint8Array(m.seed)).secretKey);
    const sig = sign.sign(new Uint8Array(m.data), keys.get(m.keyId));
    parentPort.postMessage({ id: m.id, sig }, [sig.buffer]);
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: String(err && err.message || err) });
  }
});`;

type Pending = { resolve: (sig: Uint8Array) => void; reject: (err: Error) => void };

export class MlDsaWorkerPool {
  private readonly workers: Worker[];
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private nextWorker = 0;

  constructor(size = Math.max(1, os.availableParallelism())) {
    this.workers = Array.from({ length: size }, () => {
      const worker = new Worker(WORKER_SOURCE, { eval: true });
      worker.unref(); // never keeps a process alive on its own
      worker.on('message', (m: { id: number; sig?: Uint8Array; error?: string }) => {
        const p = this.pending.get(m.id);
        this.pending.delete(m.id);
        if (m.error !== undefined) p?.reject(new Error(`ML-DSA worker: ${m.error}`));
        else p?.resolve(new Uint8Array(m.sig!));
      });
      return worker;
    });
  }

  sign(keyId: string, seed: Buffer, data: Uint8Array): Promise<Uint8Array> {
    const id = this.nextId++;
    const worker = this.workers[this.nextWorker++ % this.workers.length]!;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, keyId, seed, data });
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
