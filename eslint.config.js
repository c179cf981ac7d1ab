// Lint: typescript-eslint with type information. `npm run lint` runs it with the format check.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      // A project of its own, type-checked by its own tsconfig with express's types (npm run test:merchant-app).
      'examples/merchant-app/',
      'dist/',
      'coverage/',
      'docs/api/',
      'reports/',
      '.stryker-tmp/',
      'bench/',
      'node_modules/',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      // Config files outside tsconfig's include are linted with the default project.
      parserOptions: { projectService: { allowDefaultProject: ['*.js'] }, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Money moves on promises: none may be dropped or handed where a void callback is expected.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // An abort rejects with `signal.reason` as given (typed any), as fetch and timers/promises do.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // A result type is an interface extending its zod-inferred shape, so that its name survives in
      // signatures (the API reference, editor hovers, compiler messages) instead of the expanded object.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      eqeqeq: ['error', 'always'],
      'no-control-regex': 'off',
      // Size limits the code meets: a function does one thing, reads top to bottom.
      complexity: ['error', 15],
      'max-depth': ['error', 4],
      'max-nested-callbacks': ['error', 4],
      'max-params': ['error', 5],
      'max-lines-per-function': ['error', { max: 70, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // Tests: describe/it callbacks are long by nature; nesting and promise rules still apply.
    files: ['test/**/*.ts', 'examples/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      'max-lines-per-function': 'off',
      complexity: 'off',
      'max-nested-callbacks': ['error', 6],
      'max-params': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
      // Tests read JSON the way a caller would, untyped; the promise rules above still hold.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
);
