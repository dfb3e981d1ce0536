/** Three test tiers, told apart by file name (docs/testing.md, "Tiers"). */
const moduleNameMapper = {
  '^@flaglens/(contract|persistence|kafka|projections|config|pipeline|observability|source|operations|testing)$':
    '<rootDir>/libs/$1/src',
  '^@flaglens/(contract|persistence|kafka|projections|config|pipeline|observability|source|operations|testing)/(.*)$':
    '<rootDir>/libs/$1/src/$2',
};
const base = {
  rootDir: __dirname,
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true }] },
  testEnvironment: 'node',
  moduleNameMapper,
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/.cache/', '/.run/'],
  modulePathIgnorePatterns: ['<rootDir>/.cache/', '<rootDir>/dist/', '<rootDir>/.run/'],
};
module.exports = {
  // longest files first, and `--shard` by recorded seconds (scripts/test-sequencer.js)
  testSequencer: '<rootDir>/scripts/test-sequencer.js',
  projects: [
    {
      ...base,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,libs,migrations,scripts,bench,conformance}/**/*.spec.ts'],
    },
    {
      ...base,
      displayName: 'int',
      testMatch: ['<rootDir>/{apps,libs,scripts}/**/*.int-spec.ts'],
      // the apps and the CLI these tests start run compiled: dist/ is built first when a source is newer
      globalSetup: '<rootDir>/scripts/ensure-built.js',
      setupFilesAfterEnv: ['<rootDir>/libs/testing/src/support/jest-long-timeout.ts'],
    },
    {
      ...base,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/scripts/ensure-built.js',
      setupFilesAfterEnv: ['<rootDir>/libs/testing/src/support/jest-long-timeout.ts'],
    },
  ],
};
