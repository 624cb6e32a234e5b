import { releaseState, UNIT_TEST_STATE } from './state.js';

export default function unitTeardown(): Promise<void> {
  return releaseState(UNIT_TEST_STATE);
}
