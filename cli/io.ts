// Where a CLI command reads its environment and input and writes its output:
// the process's own, or, when a command runs inside another program (the
// tests run each command in theirs, as `keyflow` would run it in its own
// process), the streams that program gave `withCliIo` for that command.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  stdin: () => AsyncIterable<Buffer | string>;
}

const PROCESS_IO: CliIo = {
  env: process.env,
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  stdin: () => process.stdin,
};

const current = new AsyncLocalStorage<CliIo>();

/** The running command's streams. */
export const cliIo = (): CliIo => current.getStore() ?? PROCESS_IO;

/** Runs `command` with `io` as its streams. */
export const withCliIo = <T>(io: CliIo, command: () => Promise<T>): Promise<T> => current.run(io, command);

/** The whole of stdin, without its final line break (`echo secret | keyflow … --client-secret-stdin`). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of cliIo().stdin()) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}
