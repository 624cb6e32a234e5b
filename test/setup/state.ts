// What global setup hands to global teardown (same process, so a global is enough).
import type { WriteStream } from 'node:fs';
import type { ManagedProcess } from '../../tools/embedded/process.js';

export const TEST_STATE = Symbol.for('keyflow.test.state');

export interface TestState {
  dir: string;
  processes: ManagedProcess[];
  log: WriteStream;
}
