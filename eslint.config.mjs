import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.cache/', '.run/', 'coverage/', 'jest.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // the few plain CommonJS entry files (bin/, scripts/*.js)
    files: ['**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        process: 'readonly',
        console: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'warn',
    },
  },
  {
    // type-aware: a promise is awaited, returned or explicitly voided, and never passed where a callback's
    // result is ignored
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  // import boundaries: apps may import libs; a lib never imports an app; production code never imports the
  // testing library; a projection reads another only through its declared reads (*.read-model, *.logic)
  {
    files: ['apps/**/*.ts', 'libs/**/*.ts', 'migrations/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.int-spec.ts', 'libs/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@flaglens/testing', '@flaglens/testing/*', '**/libs/testing/**', '**/test/**'],
              message: 'production code never imports the testing library or test code',
            },
            { group: ['**/apps/**'], message: 'a lib never imports an app' },
            {
              group: ['../*/*.projection', '../*/*.migration', '@flaglens/projections/*/*.projection'],
              message: 'a projection reads another only through its declared reads (*.read-model, *.logic)',
            },
          ],
        },
      ],
    },
  },
  {
    // the web console is bundled apart: it imports no app's file and, of the libs, only the operations
    // feature's wire types (type-only, erased from the bundle), the root Admin rule (one import-free function)
    // and the diff's JSON types (its tests check the console against the api's diff)
    files: ['apps/console/**/*.ts', 'apps/console/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../../*', '**/apps/**', '**/libs/**'],
              message: 'the console imports no other app and no lib file by path',
            },
            {
              regex:
                '^@flaglens/(?!operations/operations\\.types$|projections/identity/root-admin$|contract/json-diff$)',
              message:
                'the console imports only the operations wire types, the root Admin rule and the JSON diff (files without imports)',
            },
          ],
        },
      ],
    },
  },
  {
    // every Postgres connection of the products owns its errors: opened through libs/persistence/src/connections.ts
    // (an unheard 'error' event of a pg client ends the process when the server restarts)
    files: ['apps/**/*.ts', 'libs/**/*.ts', 'migrations/**/*.ts', 'scripts/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.int-spec.ts', 'libs/testing/**', 'libs/persistence/src/connections.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'NewExpression[callee.name=/^(Pool|Client)$/]',
          message:
            'open Postgres connections with openPool/openClient (@flaglens/persistence): they own their errors',
        },
      ],
    },
  },
  {
    // the operations feature's wire types import nothing, so the console's bundle can take them
    files: ['libs/operations/src/operations.types.ts', 'libs/contract/src/json-diff.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '.', message: 'the wire types import nothing (the console bundles them)' }] },
      ],
    },
  },
  {
    // tests may use the testing library, but a lib's tests still never import an app
    files: ['libs/**/*.spec.ts', 'libs/**/*.int-spec.ts', 'libs/testing/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/apps/**'], message: 'a lib never imports an app' }] },
      ],
    },
  },
);
