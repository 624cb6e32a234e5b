// A MongoDB database of a test file's own, for tests that see whole
// collections (every team, the audit log, `clients list`) or run the CLI and
// an api on it: nothing another test file writes lands there. Its flows go to
// a task queue of its own too (isolatedEnv), which the worker startTestApi
// starts for such a database serves. Each run of the suite starts a new FerretDB,
// so a name only has to be unique within the run.
import { openStore, type Store } from '../../lib/store/db.js';
import { testConfig } from './harness.js';

export interface TestDatabase {
  name: string;
  /** The environment of an api, worker or CLI on it (for startTestApi, runCli, testConfig). */
  env: { MONGODB_DATABASE: string };
}

/** The database `keyflow_test_<label>`: name it after the test file (and the case, when a case needs one of its own). */
export function testDatabase(label: string): TestDatabase {
  const name = `keyflow_test_${label}`;
  return { name, env: { MONGODB_DATABASE: name } };
}

/** A store on `database`, or on the suite's shared database; the test closes it. */
export function openTestStore(database?: TestDatabase): Store {
  return openStore(testConfig(database?.env ?? {}));
}
