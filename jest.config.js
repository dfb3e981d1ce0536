/** Three test tiers, told apart by file name (see README "Tests"). */
const moduleNameMapper = {
  '^@flaglens/(contract|persistence|kafka|projections|config|pipeline|observability|source|testing)$':
    '<rootDir>/libs/$1/src',
  '^@flaglens/(contract|persistence|kafka|projections|config|pipeline|observability|source|testing)/(.*)$':
    '<rootDir>/libs/$1/src/$2',
};
const base = {
  rootDir: __dirname,
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true }] },
  testEnvironment: 'node',
  moduleNameMapper,
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/.cache/'],
  modulePathIgnorePatterns: ['<rootDir>/.cache/', '<rootDir>/dist/'],
};
module.exports = {
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,scripts,bench}/**/*.spec.ts'] },
    {
      ...base,
      displayName: 'int',
      testMatch: ['<rootDir>/{apps,libs,scripts}/**/*.int-spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/libs/testing/src/support/jest-long-timeout.ts'],
    },
    {
      ...base,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/libs/testing/src/support/jest-long-timeout.ts'],
    },
  ],
};
