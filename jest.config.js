// Jest runs the compiled tests in dist/ (npm test compiles first with tsc,
// which is also the type check), as native ES modules: no transform step.
//
// Two projects by cost: `unit` needs no server (domain modules, workflows in
// Temporal's time-skipping test environment, replays of recorded histories);
// `integration` (test/integration and test/browser) runs against a real
// Temporal dev server, FerretDB and a worker that the global setup starts.
const common = { testEnvironment: 'node', testMatch: ['**/*.test.js'], transform: {} };

export default {
  projects: [
    { ...common, displayName: 'unit', roots: ['<rootDir>/dist/test/unit'] },
    {
      ...common,
      displayName: 'integration',
      roots: ['<rootDir>/dist/test/integration', '<rootDir>/dist/test/browser'],
      globalSetup: '<rootDir>/dist/test/setup/global-setup.js',
      globalTeardown: '<rootDir>/dist/test/setup/global-teardown.js',
    },
  ],
  // Global options (a project's own testTimeout is not read).
  testTimeout: 60_000,
  maxWorkers: 2,
  verbose: true,
};
