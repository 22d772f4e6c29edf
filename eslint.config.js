// ESLint flat config (ESLint 9). Rules that catch defects, not style: formatting is Prettier's job
// (`npm run format:check`), and eslint-config-prettier, last, switches off anything that would fight it.
// Not type-aware (no parserOptions.project): fast on a two-core machine; `npm run typecheck` does the types.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import react from 'eslint-plugin-react';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const JSX = ['**/*.tsx', '**/*.jsx'];

export default defineConfig(
  globalIgnores(['dist/', 'test-results/', 'coverage/', 'data/', '.cache/', 'public/vendor/', '**/*.min.js']),
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals: { ...globals.node } },
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  // Islands run in the browser.
  { files: ['client/**'], languageOptions: { globals: { ...globals.browser } } },
  // Views: React 19 with the automatic JSX runtime, server-rendered; TypeScript checks the props.
  { files: JSX, ...react.configs.flat.recommended, settings: { react: { version: '19' } } },
  { files: JSX, ...react.configs.flat['jsx-runtime'] },
  { files: JSX, ...jsxA11y.flatConfigs.recommended },
  {
    files: JSX,
    rules: {
      'react/prop-types': 'off', // TypeScript checks the props
      'react/display-name': 'off', // a devtools aid; these components only ever render on the server
    },
  },
  {
    // Where React components live. Only the rule that catches a real defect in server-rendered components
    // (a hook called conditionally); the React Compiler rules of `recommended` are about client re-renders,
    // which these views never have. Not elsewhere: embedded/ has a plain function named `useMethod`.
    files: ['views/**/*.{ts,tsx}', '**/*.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error' },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  // Tests read parsed JSON bodies and poke at internals: `any` there is a convenience, not a defect.
  { files: ['test/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  prettier,
);
