// Jest runs the compiled tests in dist/ (npm test compiles first with tsc,
// which is also the type check), as native ES modules: no transform step.
//
// Two projects by cost: `unit` needs no database, api or Keyflow worker
// (model modules, replays of recorded histories, workflows with stub
// activities on one in-memory Temporal dev server that its global setup
// starts); `integration` runs against a real Temporal dev server, FerretDB and
// a worker that the global setup starts. Its tests live in one folder a feature
// under test/integration (e.g. tokens/, step-up/, webhooks/): the HTTP tests and,
// named `*-browser.test.ts`, the same feature driven through headless Chromium.
const common = { testEnvironment: 'node', testMatch: ['**/*.test.js'], transform: {} };

export default {
  projects: [
    {
      ...common,
      displayName: 'unit',
      roots: ['<rootDir>/dist/test/unit'],
      globalSetup: '<rootDir>/dist/test/setup/unit-setup.js',
      globalTeardown: '<rootDir>/dist/test/setup/unit-teardown.js',
    },
    {
      ...common,
      displayName: 'integration',
      roots: ['<rootDir>/dist/test/integration'],
      // The build groups each folder's test files into suites of up to five
      // (tools/scripts/integration-suites.mjs): a jest test file's module
      // graph is evaluated once per suite instead of once per file.
      testMatch: ['**/*.suite.js'],
      globalSetup: '<rootDir>/dist/test/setup/global-setup.js',
      globalTeardown: '<rootDir>/dist/test/setup/global-teardown.js',
    },
  ],
  // A global option: inside a project it is ignored and tests get Jest's 5 s.
  testTimeout: 60_000,
  // Four suites at once on two cores: the integration tests wait a lot (timers,
  // HTTP round trips, processes starting, a browser), and with three the
  // machine was idle a fifth of the time (155 % CPU for the integration
  // project once its files ran in suites).
  maxWorkers: 4,
  verbose: true,
};
