import { releaseState, TEST_STATE } from './state.js';

export default function globalTeardown(): Promise<void> {
  return releaseState(TEST_STATE);
}
