// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { layersPlugin } from './scripts/layerRule.mjs';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.cache/**', 'release/**', '.artifacts/**', '**/*.tmp.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.mjs', 'scripts/*.mjs', 'bin/*.mjs'] }, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { overseer: layersPlugin },
    rules: {
      // Import layers are allowlists, one per folder, tests included: scripts/layers.mjs.
      'overseer/layers': 'error',
      // node:test's describe/it return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'before', 'after', 'beforeEach', 'afterEach'] }] },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  { files: ['**/*.mjs'], ...tseslint.configs.disableTypeChecked, languageOptions: { globals: globals.node } },
  { files: ['**/*.test.ts'], rules: { '@typescript-eslint/require-await': 'off' } },
  // stdout is the helper's wire, and the supervisor logs through its injected `log`.
  { files: ['helper/**/*.ts', 'main/core/**/*.ts'], ignores: ['**/*.test.ts'], rules: { 'no-console': 'error' } },
);
