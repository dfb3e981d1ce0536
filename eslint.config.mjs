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
