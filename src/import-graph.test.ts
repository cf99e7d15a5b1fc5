import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The module graph of the product (`src`, tests excluded), from its relative imports and re-exports, type
 * imports included: a cycle is a design knot even when the compiler erases one of its edges.
 */
const SRC = path.resolve(import.meta.dirname);

function productFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : productFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^;'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function graph(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const file of productFiles(SRC)) {
    const source = readFileSync(file, 'utf8');
    const targets = [...source.matchAll(IMPORT)].map((match) =>
      path.resolve(path.dirname(file), (match[1] ?? match[2] ?? '').replace(/\.js$/, '.ts')),
    );
    edges.set(file, targets);
  }
  return edges;
}

/** Strongly connected components with more than one module (Tarjan), each as relative paths. */
function cycles(edges: Map<string, string[]>, name = (node: string) => path.relative(SRC, node)): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!edges.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      component.push(name(member));
      if (member === node) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

/**
 * Cycles between the folders directly below `root` (`runs`, `subagents`, …; files at its root form the node
 * `.`), each listed as the folders in it with one import per edge that closes it, so that two folders never lean
 * on each other: the piece both need belongs in the lower one, or in core.
 */
function folderCycles(edges: Map<string, string[]>, root: string): string[][] {
  const folderOf = (file: string): string | undefined => {
    const relative = path.relative(root, file);
    if (relative.startsWith('..')) return undefined;
    const parts = relative.split(path.sep);
    return parts.length === 1 ? '.' : parts[0];
  };
  const folderEdges = new Map<string, string[]>();
  const witness = new Map<string, string>();
  for (const [file, targets] of edges) {
    const from = folderOf(file);
    if (from === undefined) continue;
    for (const target of targets) {
      const to = folderOf(target);
      if (to === undefined || to === from) continue;
      const key = `${from} → ${to}`;
      if (witness.has(key)) continue;
      witness.set(key, `${path.relative(root, file)} → ${path.relative(root, target)}`);
      folderEdges.set(from, [...(folderEdges.get(from) ?? []), to]);
    }
  }
  for (const folder of [...folderEdges.values()].flat())
    if (!folderEdges.has(folder)) folderEdges.set(folder, []);
  return cycles(folderEdges, (node) => node).map((members) =>
    members.flatMap((from) =>
      members
        .filter((to) => witness.has(`${from} → ${to}`))
        .map((to) => `${from} → ${to} (${witness.get(`${from} → ${to}`) ?? ''})`),
    ),
  );
}

/** Every TypeScript file below `dir`, tests included. */
function allFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : allFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

const PACKAGE_IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^;'"]*?from\s*['"]([^.'"][^'"]*)['"]|(?:^|\n)\s*import\s*['"]([^.'"][^'"]*)['"]|import\(\s*['"]([^.'"][^'"]*)['"]\s*\)/g;

/** The packages each file imports, by path relative to the repository. */
function packageImports(files: string[]): [string, string][] {
  const root = path.resolve(SRC, '..');
  return files.flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(PACKAGE_IMPORT)].map((match): [string, string] => [
      path.relative(root, file),
      match[1] ?? match[2] ?? match[3] ?? '',
    ]),
  );
}

/**
 * The AI SDK's fence (docs/model-calls.md#the-ai-sdk): its types and its `ai/internal` module (which "can change
 * in patch versions") stay in the models adapter, so that an upgrade touches that folder and no stored thread.
 */
describe('the SDK fences', () => {
  const root = path.resolve(SRC, '..');
  const imports = packageImports([
    ...allFiles(SRC),
    ...allFiles(path.join(root, 'test')),
    ...allFiles(path.join(root, 'bench')),
  ]);
  const isAiSdk = (name: string) => /^(ai|@ai-sdk\/[^/]+)(\/.*)?$/.test(name);

  it('reads the package imports of src, test and bench', () => {
    expect(imports.filter(([, name]) => isAiSdk(name)).length).toBeGreaterThan(10);
    expect(imports.some(([, name]) => name === 'ai/internal')).toBe(true);
  });

  it('imports ai/internal in one file only', () => {
    const users = imports.filter(([, name]) => name === 'ai/internal').map(([file]) => file);
    expect(users).toEqual(['src/adapters/models/ai-sdk/ai-sdk-internals.ts']);
  });

  it('imports ai and @ai-sdk/* in src only inside src/adapters/models', () => {
    const outside = imports.filter(
      ([file, name]) => file.startsWith('src/') && !file.startsWith('src/adapters/models/') && isAiSdk(name),
    );
    expect(outside).toEqual([]);
  });

  it('keeps every SDK out of src/core: no ai, @ai-sdk/* or @a2a-js/* import', () => {
    const inCore = imports.filter(
      ([file, name]) => file.startsWith('src/core/') && (isAiSdk(name) || name.startsWith('@a2a-js/')),
    );
    expect(inCore).toEqual([]);
  });
});

describe('the module graph of src', () => {
  const edges = graph();

  it('is read from every product module', () => {
    expect(edges.size).toBeGreaterThan(200);
    expect([...edges.values()].flat().length).toBeGreaterThan(500);
  });

  it('has no import cycles', () => {
    expect(cycles(edges)).toEqual([]);
  });

  it('keeps core pure: no runtime, adapter, http or cli module and no node I/O', () => {
    const impure: string[] = [];
    for (const [file, targets] of edges) {
      const relative = path.relative(SRC, file);
      if (!relative.startsWith('core/')) continue;
      for (const target of targets) {
        const layer = path.relative(SRC, target).split(path.sep)[0] ?? '';
        if (!['core'].includes(layer)) impure.push(`${relative} → ${path.relative(SRC, target)}`);
      }
      const source = readFileSync(file, 'utf8');
      for (const match of source.matchAll(/from\s*['"]node:(fs|net|http|https|child_process|dns)[^'"]*['"]/g))
        impure.push(`${relative} → node:${match[1] ?? ''}`);
    }
    expect(impure).toEqual([]);
  });

  it('keeps adapters below the runtime: an adapter implements a port of src/core and imports no runtime module', () => {
    const upward: string[] = [];
    for (const [file, targets] of edges) {
      const relative = path.relative(SRC, file);
      if (!relative.startsWith(`adapters${path.sep}`)) continue;
      for (const target of targets)
        if (path.relative(SRC, target).startsWith(`runtime${path.sep}`))
          upward.push(`${relative} → ${path.relative(SRC, target)}`);
    }
    expect(upward).toEqual([]);
  });

  it('has no cycle between the folders of src/runtime (the first folder below it; its root files are one node)', () => {
    expect(folderCycles(edges, path.join(SRC, 'runtime'))).toEqual([]);
  });

  it('keeps test helpers and vitest out of the product', () => {
    const leaks: string[] = [];
    for (const [file, targets] of edges) {
      const source = readFileSync(file, 'utf8');
      if (/from\s*['"]vitest['"]/.test(source)) leaks.push(`${path.relative(SRC, file)} → vitest`);
      for (const target of targets)
        if (/[/\\](testing|test)[/\\]/.test(path.relative(SRC, target)) || !target.startsWith(SRC))
          leaks.push(`${path.relative(SRC, file)} → ${path.relative(SRC, target)}`);
    }
    expect(leaks).toEqual([]);
  });
});
