import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', 'dashboard/dist/', '.replay-data/', 'coverage/', 'dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
      // `import { z }` keeps zod's whole namespace (every locale) in each function bundle; `import * as z`
      // lets esbuild drop what is unused (bench/bundles.ts measures it).
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value='zod'][importKind!='type'] > ImportSpecifier[imported.name='z'], ImportDeclaration[source.value='zod'] > ImportDefaultSpecifier",
          message: "Use `import * as z from 'zod'` so function bundles tree-shake zod.",
        },
      ],
    },
  },
  // Boundaries. The cockpit runs in the browser: it takes values only from shared/cockpit (code the server
  // runs too) and types from the rest of shared/. shared/cockpit imports nothing server-side. Server code
  // never reaches into the cockpit's sources.
  {
    files: ['dashboard/src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*', 'zod', '@aws-sdk/*', '@aws-lambda-powertools/*'], message: 'The cockpit runs in the browser.' },
            { regex: '/shared/(?!cockpit/)', allowTypeImports: true, message: 'The cockpit takes values only from shared/cockpit.' },
            { group: ['**/functions/**', '**/infra/**', '**/bin/**'], message: 'The cockpit does not import server code.' },
          ],
        },
      ],
    },
  },
  {
    files: ['shared/**/*.ts', 'functions/**/*.ts', 'infra/**/*.ts', 'bin/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ group: ['**/dashboard/src/**'], message: 'Server code does not import the cockpit.' }] }],
    },
  },
  {
    files: ['shared/cockpit/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*', 'zod', '@aws-sdk/*', '@aws-lambda-powertools/*'], message: 'shared/cockpit runs in the browser too.' },
            { regex: '^\\.\\./(?!schema/(enums|run-id)\\.ts$)', allowTypeImports: true, message: 'shared/cockpit takes values only from itself and the plain constants of shared/schema.' },
            // This block replaces the server block's options for these files, so its rule is repeated.
            { group: ['**/dashboard/src/**'], message: 'Server code does not import the cockpit.' },
          ],
        },
      ],
    },
  },
);
