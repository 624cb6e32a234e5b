// Jest runs the compiled tests in dist/ (npm test compiles first with tsc,
// which is also the type check), as native ES modules: no transform step.
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/dist/test'],
  testMatch: ['**/*.test.js'],
  transform: {},
  globalSetup: '<rootDir>/dist/test/setup/global-setup.js',
  globalTeardown: '<rootDir>/dist/test/setup/global-teardown.js',
  testTimeout: 60_000,
  maxWorkers: 2,
  verbose: true,
};
