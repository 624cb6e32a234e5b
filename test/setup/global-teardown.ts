import fs from 'node:fs';
import { TEST_STATE, type TestState } from './state.js';

export default async function globalTeardown(): Promise<void> {
  const state = (globalThis as Record<symbol, unknown>)[TEST_STATE] as TestState | undefined;
  if (!state) return;
  for (const p of state.processes) await p.stop(5_000);
  state.log.end();
  if (!process.env.KEYFLOW_KEEP_TEST_DIR) fs.rmSync(state.dir, { recursive: true, force: true });
}
