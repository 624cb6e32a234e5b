// What a global setup hands to its global teardown (same process, so a global
// is enough): one key per jest project, as both run their setups in one process.
import fs from 'node:fs';
import type { WriteStream } from 'node:fs';
import type { ManagedProcess } from '../../tools/embedded/process.js';

export const TEST_STATE = Symbol.for('keyflow.test.state');
export const UNIT_TEST_STATE = Symbol.for('keyflow.unit-test.state');

export interface TestState {
  dir: string;
  processes: ManagedProcess[];
  log: WriteStream;
}

export function keepState(key: symbol, state: TestState): void {
  (globalThis as Record<symbol, unknown>)[key] = state;
}

/** Stops the processes a setup started and removes its folder (unless KEYFLOW_KEEP_TEST_DIR is set). */
export async function releaseState(key: symbol): Promise<void> {
  const state = (globalThis as Record<symbol, unknown>)[key] as TestState | undefined;
  if (!state) return;
  for (const p of state.processes) await p.stop(5_000);
  state.log.end();
  if (!process.env.KEYFLOW_KEEP_TEST_DIR) fs.rmSync(state.dir, { recursive: true, force: true });
}
