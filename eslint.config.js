// @ts-check
import { readFileSync } from 'node:fs';
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const TS_FILES = ['**/*.ts', '**/*.mts', '**/*.cts', '**/*.tsx'];
const JS_FILES = ['**/*.js', '**/*.mjs', '**/*.cjs'];

/** Entry points and tooling that talk to a terminal; everything else logs through whatever it is given. */
const CONSOLE_ALLOWED = ['src/cli/**', 'src/main.ts', 'bench/**', 'test/**', 'scripts/**'];

/** Infrastructure the pure core must reach only through ports. */
const CORE_FORBIDDEN_PACKAGES = [
  {
    regex: '^(node:)?(fs|http|net|child_process)(/.*)?$',
    message: 'src/core is pure: file system, network and processes belong to adapters or runtime.',
  },
  {
    regex: '^(better-sqlite3|pg|ioredis|hono)(/.*)?$',
    message: 'src/core is pure: drivers and frameworks belong to adapters or http.',
  },
  { regex: '^@hono/', message: 'src/core is pure: drivers and frameworks belong to adapters or http.' },
  {
    regex: '^(ai|@ai-sdk/[^/]+|@a2a-js/[^/]+)(/.*)?$',
    message:
      "src/core holds Troupe's own shapes: the AI SDK stays in src/adapters/models, the A2A SDK outside core (docs/model-calls.md#the-ai-sdk).",
  },
];

/** Folders below `src/`, named as their first path segment, that a layer must not import. */
const LAYERS = [
  {
    layer: 'core',
    forbidden: ['adapters', 'http', 'runtime', 'cli', 'main'],
    packages: CORE_FORBIDDEN_PACKAGES,
  },
  // Adapters implement ports (src/core/ports) and never reach up into the runtime. Their tests may: an integration
  // test wires a real run (a wait, a tool call) around the adapter it tests.
  { layer: 'adapters', forbidden: ['main', 'cli', 'runtime'], testsMayImport: ['runtime'], packages: [] },
  { layer: 'http', forbidden: ['main', 'cli'], packages: [] },
  // Runtime depends on ports only; `main.ts` hands it concrete adapters. Type imports are refused too.
  { layer: 'runtime', forbidden: ['main', 'cli', 'adapters'], packages: [] },
];

/**
 * Product files that may import the file system, each with why (`fs-access-allow-list.json`, also read by
 * `src/fs-access.test.ts`; a path ending in `/` is a folder). Everything else reaches files under a workdir or
 * the data dir through the workdir API (README "Security"). Type-only imports are no file access.
 */
/** @type {Record<string, string>} */
const FS_ACCESS_ALLOWED = JSON.parse(
  readFileSync(new URL('./fs-access-allow-list.json', import.meta.url), 'utf8'),
);

export const fsAccessRule = {
  name: 'troupe/fs-access',
  files: ['src/**/*.ts'],
  ignores: [
    'src/**/*.test.ts',
    ...Object.keys(FS_ACCESS_ALLOWED).map((entry) => (entry.endsWith('/') ? `${entry}**` : entry)),
  ],
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        paths: ['fs', 'fs/promises', 'node:fs', 'node:fs/promises'].map((name) => ({
          name,
          allowTypeImports: true,
          message:
            'Files under a workdir or the data dir go through the workdir API (src/runtime/tools/workdir/); any other file access needs an entry with its reason in fs-access-allow-list.json.',
        })),
      },
    ],
  },
};

/** Folder nesting below a layer that gets an exact rule; anything deeper shares one approximate rule. */
const MAX_LAYER_DEPTH = 8;

/**
 * `no-restricted-imports` sees the specifier as written, not the resolved file. So that `../runtime` is refused
 * from `src/core/x.ts` but not from `src/core/runs/x.ts` (that would be `src/core/runtime`), there is one config
 * per nesting depth, each refusing exactly the number of `../` that climbs back to `src/`.
 */
function layerRules() {
  return LAYERS.flatMap(({ layer, forbidden, packages, testsMayImport = [] }) =>
    Array.from({ length: MAX_LAYER_DEPTH + 1 }, (_, depth) => {
      const deepest = depth === MAX_LAYER_DEPTH;
      const climb = deepest ? `(\\.\\./){${depth + 1},}` : '\\.\\./'.repeat(depth + 1);
      const files = TS_FILES.map(
        (glob) => `src/${layer}/${'*/'.repeat(depth)}${deepest ? glob : glob.replace('**/', '')}`,
      );
      const name = `troupe/layers/${layer}/depth-${depth + 1}${deepest ? '-and-deeper' : ''}`;
      const rules = (/** @type {string[]} */ refused) => {
        const folders = refused.filter((folder) => folder !== 'main').join('|');
        const patterns = [
          ...packages,
          {
            regex: `^${climb}(${folders})(/|$)`,
            message: `src/${layer} may not import src/{${folders.replaceAll('|', ',')}}: dependencies point inwards, to ports.`,
          },
        ];
        if (refused.includes('main')) {
          patterns.push({
            regex: `^${climb}main(\\.[cm]?[jt]s)?$`,
            message: `src/${layer} may not import the composition root (src/main.ts).`,
          });
        }
        return { 'no-restricted-imports': ['error', { patterns }] };
      };
      if (testsMayImport.length === 0) return [{ name, files, rules: rules(forbidden) }];
      const tests = files.map((glob) => glob.replace(/\*\.(\w+)$/, '*.test.$1'));
      return [
        { name, files, ignores: tests, rules: rules(forbidden) },
        {
          name: `${name}/tests`,
          files: tests,
          rules: rules(forbidden.filter((folder) => !testsMayImport.includes(folder))),
        },
      ];
    }).flat(),
  );
}

export default defineConfig(
  globalIgnores([
    'dist/',
    '.bench-build/',
    'web/dist/',
    // Generated by `npm run gen:api-types` (scripts/generate-api-types.ts); a test keeps it current.
    'web/src/api/openapi-types.ts',
    'node_modules/',
    'data/',
    'coverage/',
    'test-artifacts/',
  ]),
  {
    name: 'troupe/linter-options',
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  tseslint.configs.stylisticTypeChecked,
  {
    name: 'troupe/typescript',
    files: TS_FILES,
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'separate-type-imports' },
      ],
      // With verbatimModuleSyntax, `import { type A }` still loads the module; `import type` does not.
      '@typescript-eslint/no-import-type-side-effects': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'warn',
      // The stylistic preset would turn `value as T` into `value!`, which the rule above warns about.
      '@typescript-eslint/non-nullable-type-assertion-style': 'off',
      // `env.X || fallback` deliberately treats an empty string as unset.
      '@typescript-eslint/prefer-nullish-coalescing': ['error', { ignorePrimitives: { string: true } }],
      // Same escape hatch as the compiler's noUnusedParameters: a leading underscore marks "unused on purpose".
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    name: 'troupe/no-console',
    rules: { 'no-console': 'error' },
  },
  {
    name: 'troupe/console-allowed',
    files: CONSOLE_ALLOWED,
    rules: { 'no-console': 'off' },
  },
  {
    // Config files and scripts in plain JS are outside every tsconfig: lint them without type information.
    name: 'troupe/javascript',
    files: JS_FILES,
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
  layerRules(),
  fsAccessRule,
);
