// Starts the peer (main.ts) as a child process and stops it. Every child is
// remembered so that the benchmark's 'exit' handler can kill what is still
// running; the child also exits by itself when its IPC channel closes.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { PeerSettings } from './main.js';

const running = new Set<ChildProcess>();

export interface PeerProcess {
  issuer: string;
  pid: number;
  stop: () => Promise<void>;
}

export function startPeer(settings: PeerSettings): Promise<PeerProcess> {
  const child = fork(fileURLToPath(new URL('./main.js', import.meta.url)), [], {
    env: { ...process.env, PEER_SETTINGS: JSON.stringify(settings) },
    execArgv: ['--enable-source-maps', '--disable-warning=ExperimentalWarning'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  running.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => running.delete(child));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => void stop().then(() => reject(new Error('the peer did not start within 30 s'))), 30_000);
    child.once('message', (m: { ready?: string }) => {
      clearTimeout(timer);
      if (m.ready) resolve({ issuer: m.ready, pid: child.pid!, stop });
      else void stop().then(() => reject(new Error('the peer sent an unexpected message')));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the peer exited before listening (code ${code}, signal ${signal})`));
    });
  });
}

/** Kills every peer still running (synchronous: usable from a process 'exit' handler). */
export function killPeers(): void {
  for (const child of running) child.kill('SIGKILL');
}
