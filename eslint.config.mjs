// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Import zones: each runtime imports only what sits below it (STYLE.md). */
const zone = (files, patterns, extra = {}) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns }], ...extra },
});

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.cache/**', 'release/**', '.artifacts/**', '**/*.tmp.ts', 'e2e/fixtures/**/*.py'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: { allowDefaultProject: ['*.mjs', 'scripts/*.mjs', 'bin/*.mjs'] }, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test's describe/it return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'before', 'after', 'beforeEach', 'afterEach'] }] }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  { files: ['**/*.mjs'], ...tseslint.configs.disableTypeChecked, languageOptions: { globals: globals.node } },
  { files: ['**/*.test.ts'], rules: { '@typescript-eslint/require-await': 'off' } },
  zone(['protocol/**/*.ts'], [
    { group: ['node:*', 'fs', 'path', 'child_process'], message: 'protocol/ holds contracts only: no Node APIs. Put runtime code in helper/ or main/core/.' },
    { group: ['electron', 'electron/*'], message: 'protocol/ never imports electron.' },
    { group: ['**/helper/**', '**/main/**', '**/renderer/**', '**/preload/**'], message: 'protocol/ is the bottom layer: it imports nothing of the project.' },
  ]),
  zone(['helper/**/*.ts'], [
    { group: ['electron', 'electron/*'], message: 'The helper is a plain Node process: no electron.' },
    { group: ['**/main/**', '**/renderer/**', '**/preload/**', '**/e2e/**'], message: 'The helper talks to the supervisor only through protocol/ (JSON-RPC).' },
  ], { 'no-console': ['error'] }),
  zone(['main/core/**/*.ts'], [
    { group: ['electron', 'electron/*'], message: 'main/core is plain Node: the Electron shell adapts it in main/electron/.' },
    { group: ['**/renderer/**', '**/preload/**', '**/main/electron/**'], message: 'main/core talks to the UI only through the UI channel table in protocol/.' },
    { group: ['**/helper/core/**', '**/helper/backends/**'], message: 'main/core reaches the helper only through its RPC client (main/core/helperProcess.ts), never its internals.' },
  ], { 'no-console': ['error'] }),
  zone(['preload/**/*.ts'], [
    { group: ['node:*', 'fs', 'path', 'child_process'], message: 'The preload runs sandboxed: no Node APIs.' },
    { group: ['**/main/**', '**/helper/**', '**/renderer/**'], message: 'The preload builds the bridge from protocol/ only.' },
  ]),
  {
    files: ['preload/**/*.test.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  zone(['renderer/**/*.ts', 'renderer/**/*.tsx'], [
    { group: ['node:*', 'fs', 'path', 'child_process'], message: 'The renderer runs in a sandboxed page: no Node APIs. Ask the supervisor over the UI channel (renderer/api).' },
    { group: ['electron', 'electron/*'], message: 'The renderer never imports electron; the preload bridge carries the UI channel.' },
    { group: ['**/main/**', '**/helper/**', '**/preload/**'], message: 'The renderer talks to the supervisor only through the UI channel table in protocol/.' },
  ]),
  {
    files: ['renderer/**/*.test.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['main/**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['electron'], message: 'no electron in core tests' }] }] },
  },
  {
    files: ['protocol/test/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['**/helper/**', '**/main/**'], message: 'protocol tests test protocol/ alone' }] }] },
  },
  {
    files: ['helper/**/*.test.ts', 'helper/contract/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['electron'], message: 'no electron in helper tests' }, { group: ['**/main/electron/**', '**/main/commands/**', '**/main/testing/**', '**/renderer/**'], message: 'helper tests use the helper, its client (main/core/helperProcess) and e2e/ only' }] }] },
  },
);
