// Lint config: typescript-eslint's recommended rules over every TypeScript file.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.data/', '.wrangler/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
      // The deployed bundles give @hono/zod-openapi a `z` holding ZodType alone (functions/entries/zod-for-openapi.ts).
      'no-restricted-imports': [
        'error',
        { paths: [{ name: '@hono/zod-openapi', importNames: ['z'], message: "import * as z from 'zod' instead." }] },
      ],
    },
  },
  // The console's browser script: tsc checks its names against the DOM lib (lib/console/page/browser/tsconfig.json).
  { files: ['lib/console/page/browser/**/*.js'], rules: { 'no-undef': 'off' } },
);
