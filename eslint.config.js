import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', 'dashboard/dist/', '.replay-data/', 'coverage/', 'dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
      // NaN checks read as what they are.
      'no-self-compare': 'error',
      'no-restricted-globals': [
        'error',
        { name: 'isNaN', message: 'Use Number.isNaN.' },
        { name: 'isFinite', message: 'Use Number.isFinite.' },
        { name: 'parseInt', message: 'Use Number.parseInt.' },
        { name: 'parseFloat', message: 'Use Number.parseFloat.' },
      ],
      // Zod comes through shared/schema/zod.ts: the functional build, with its messages set, and imported as a
      // namespace so esbuild drops what is unused (bench/bundles.ts measures it).
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value=/^zod($|\\u002F)/][importKind!='type']",
          message: "Import zod as `import * as z from '…/shared/schema/zod.ts'`.",
        },
        {
          selector:
            "ImportDeclaration[source.value=/zod\\.ts$/][importKind!='type'] > :matches(ImportSpecifier, ImportDefaultSpecifier)",
          message: "Import zod as `import * as z from '…/shared/schema/zod.ts'`, so function bundles tree-shake it.",
        },
      ],
    },
  },
  { files: ['shared/schema/zod.ts'], rules: { 'no-restricted-syntax': 'off' } },
  // A promise nobody awaits loses its failure: an unhandled rejection, a write that may not have landed when the
  // handler answers. Type-aware: each file is checked in its own program (tsconfig.json's references).
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  // A focused or skipped test left behind silently narrows the suite CI runs.
  {
    files: ['test/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        ...['describe', 'it', 'test'].flatMap((object) =>
          ['only', 'skip', 'todo'].map((property) => ({
            object,
            property,
            message: 'Every test runs: no .only, .skip or .todo left in a test file.',
          })),
        ),
      ],
    },
  },
  // JavaScript that tsc checks (`// @ts-check`) has its names checked there, as TypeScript files do.
  { files: ['infra/local/emulator-servers.mjs'], rules: { 'no-undef': 'off' } },
  // Boundaries. The cockpit runs in the browser: it takes values only from shared/analytics (code the server
  // runs too) and types from the rest of shared/. shared/analytics imports nothing server-side. Server code
  // never reaches into the cockpit's sources.
  {
    files: ['dashboard/src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'zod', 'zod/*', '**/schema/zod.ts', '@aws-sdk/*', '@aws-lambda-powertools/*'],
              message: 'The cockpit runs in the browser.',
            },
            {
              regex: '^#(?!analytics/)|/shared/(?!analytics/)',
              allowTypeImports: true,
              message: 'The cockpit takes values only from shared/analytics (#analytics/).',
            },
            {
              group: ['**/functions/**', '**/infra/**', '**/bin/**', '\\#functions/*', '\\#infra/*'],
              message: 'The cockpit does not import server code.',
            },
          ],
        },
      ],
    },
  },
  {
    files: [
      'shared/**/*.ts',
      'core/**/*.ts',
      'adapters/**/*.ts',
      'runner/**/*.ts',
      'functions/**/*.ts',
      'infra/**/*.ts',
      'demo/**/*.ts',
      'bin/**/*.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/dashboard/src/**', '\\#dashboard/*'], message: 'Server code does not import the cockpit.' },
          ],
        },
      ],
    },
  },
  {
    files: ['shared/analytics/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'zod', 'zod/*', '**/schema/zod.ts', '@aws-sdk/*', '@aws-lambda-powertools/*'],
              message: 'shared/analytics runs in the browser too.',
            },
            {
              regex: '^(\\.\\./|#(?!schema/(enums|run-id|defaults)\\.ts$))',
              allowTypeImports: true,
              message:
                'shared/analytics takes values only from itself and the plain constants of shared/schema (enums, run ids, defaults).',
            },
            // This block replaces the server block's options for these files, so its rule is repeated.
            { group: ['**/dashboard/src/**', '\\#dashboard/*'], message: 'Server code does not import the cockpit.' },
          ],
        },
      ],
    },
  },
  // Layers. Only the adapters, the `lambda.ts` wiring, the CDK app, the operator's commands, benchmarks and
  // tests talk to AWS. core holds the rules: it takes services as ports (core/ports.ts), never
  // an adapter, an SDK client, the network or the file system.
  {
    files: ['**/*.{ts,js,mjs}'],
    ignores: ['adapters/**', 'functions/**/lambda.ts', 'infra/**', 'bin/**', 'bench/**', 'test/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@aws-sdk/*'],
              message: 'Only adapters and the lambda.ts wiring import the AWS SDK; take a port.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['core/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/adapters/**', '\\#adapters/*', '@aws-sdk/*', '@anthropic-ai/*', '@octokit/*'],
              message: 'core takes services as ports (core/ports.ts), never an adapter or an SDK.',
            },
            {
              group: ['node:http', 'node:https', 'node:fs', 'node:fs/promises', 'http', 'https', 'fs', 'fs/promises'],
              message: 'core reaches the network and the file system only through ports.',
            },
          ],
        },
      ],
    },
  },
  prettier,
);
