import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

/**
 * Every product module that can touch the file system, with why. Files under a workdir or the data dir are
 * the tenant's ground (README "Security"): the server reaches them only through the workdir API, and any
 * other file access is on the list in `fs-access-allow-list.json` (which the ESLint rule `troupe/fs-access`
 * reads too). A new call site fails here until it is either moved to the API or listed with its reason.
 */
const REPO = path.resolve(import.meta.dirname, '..');
const SRC = path.join(REPO, 'src');
const ALLOWED = JSON.parse(readFileSync(path.join(REPO, 'fs-access-allow-list.json'), 'utf8')) as Record<
  string,
  string
>;

function productFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return productFiles(full);
    const product =
      entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.contract.ts');
    return product ? [full] : [];
  });
}

const FS = `(?:node:)?fs(?:/promises)?`;
/** Static imports and re-exports that bring a value (not `import type`, not a list of `type` names only). */
const STATIC = new RegExp(
  `(?:^|\\n)\\s*(import|export)\\s+(?!type\\s)([^;'"]*?)\\s*from\\s*['"]${FS}['"]`,
  'g',
);
const DYNAMIC = new RegExp(`(?:import|require)\\(\\s*['"]${FS}['"]\\s*\\)`);

function importsFileSystem(source: string): boolean {
  if (DYNAMIC.test(source)) return true;
  return [...source.matchAll(STATIC)].some(([, , clause = '']) => {
    const names = /^\{([^}]*)\}$/.exec(clause.trim());
    // `{ type A, type B }` brings types only; anything else (a default, a namespace, one value name) is access.
    return (
      names === null ||
      names[1]?.split(',').some((name) => name.trim() !== '' && !/^type\s/.test(name.trim())) === true
    );
  });
}

const callSites = productFiles(SRC)
  .filter((file) => importsFileSystem(readFileSync(file, 'utf8')))
  .map((file) => path.relative(REPO, file).split(path.sep).join('/'))
  .sort();

const covering = (file: string) =>
  Object.keys(ALLOWED).find((entry) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry));

describe('file system access in product code', () => {
  it('happens only in the workdir API and the listed places, each with a one-line reason', () => {
    expect(callSites.filter((file) => covering(file) === undefined)).toEqual([]);
    for (const [entry, reason] of Object.entries(ALLOWED)) {
      expect(reason, entry).toMatch(/^[^\n]{10,200}$/);
    }
  });

  it('lists no place that no longer touches the file system', () => {
    const used = new Set(callSites.map(covering));
    expect(Object.keys(ALLOWED).filter((entry) => !used.has(entry))).toEqual([]);
  });

  it('is enforced by the lint rule: a file system import elsewhere is an error, a type import is not', async () => {
    const config = (await import(pathToFileURL(path.join(REPO, 'eslint.config.js')).href)) as {
      fsAccessRule: Linter.Config;
    };
    const eslint = new ESLint({
      cwd: REPO,
      overrideConfigFile: true,
      overrideConfig: [
        {
          files: ['**/*.ts'],
          languageOptions: { parser: tseslint.parser },
          plugins: { '@typescript-eslint': tseslint.plugin as unknown as ESLint.Plugin },
        },
        config.fsAccessRule,
      ],
    });
    const lint = async (filePath: string, code: string) =>
      (await eslint.lintText(code, { filePath: path.join(REPO, filePath) }))[0]?.messages.map(
        (message) => message.ruleId,
      );
    const access = "import { writeFile } from 'node:fs/promises';\nexport const write = writeFile;\n";
    expect(await lint('src/runtime/subagents/new-writer.ts', access)).toEqual([
      '@typescript-eslint/no-restricted-imports',
    ]);
    expect(await lint('src/http/new-route.ts', "import fs from 'fs';\nexport const f = fs;\n")).toEqual([
      '@typescript-eslint/no-restricted-imports',
    ]);
    expect(await lint('src/runtime/tools/workdir/new-part.ts', access)).toEqual([]);
    expect(await lint('src/runtime/subagents/new-writer.test.ts', access)).toEqual([]);
    expect(
      await lint('src/runtime/x.ts', "import type { Stats } from 'node:fs';\nexport type S = Stats;\n"),
    ).toEqual([]);
  });
});
