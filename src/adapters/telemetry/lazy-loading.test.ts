import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../..');
const TELEMETRY = path.join(SRC, 'adapters', 'telemetry');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** Static `import … from '…'` / `export … from '…'` specifiers (type-only imports are erased, so skipped). */
function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gms)].map(
    (match) => match[1] ?? '',
  );
}

describe('no cost when tracing is off', () => {
  it('keeps the OpenTelemetry packages behind the dynamic import in the composition root', () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(SRC)) {
      if (file.startsWith(TELEMETRY + path.sep)) continue;
      for (const specifier of staticImports(file)) {
        const resolved = specifier.startsWith('.') ? path.resolve(path.dirname(file), specifier) : specifier;
        if (specifier.startsWith('@opentelemetry/') || resolved.startsWith(TELEMETRY + path.sep)) {
          offenders.push(`${path.relative(SRC, file)} imports ${specifier}`);
        }
      }
    }
    expect(offenders).toEqual([]);
    expect(readFileSync(path.join(SRC, 'create-troupe.ts'), 'utf8')).toContain(
      "await import('./adapters/telemetry/create-otlp-run-tracer.js')",
    );
  });
});
