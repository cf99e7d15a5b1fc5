import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { TroupeError } from '../../../core/errors.js';
import { loadScenarioFile } from './load-scenario-file.js';
import type { Scenario } from './scenario-schema.js';

/** Looked up in this order; the first existing file wins. */
export const SCENARIO_EXTENSIONS = ['.yaml', '.yml', '.json'] as const;

/** A scenario name is a file stem: no separators, so `scripted:../x` cannot escape the folder. */
export const SCENARIO_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

interface CachedScenario {
  filePath: string;
  mtimeMs: number;
  size: number;
  /** A promise, so concurrent first loads of one file share a single read and parse. */
  scenario: Promise<Scenario>;
}

/**
 * The scenario files of one folder. Loads lazily and keeps each parsed file until its mtime or size changes,
 * so an edited scenario takes effect on the next model call without a restart.
 */
export class ScenarioStore {
  readonly #cache = new Map<string, CachedScenario>();

  constructor(readonly dir: string) {}

  /** The file a name maps to, or undefined when none exists. */
  find(name: string): string | undefined {
    return this.#locate(name)?.filePath;
  }

  /**
   * The first existing candidate file with its stat. Synchronous on purpose: it runs on every model call,
   * and a stat of a local file costs microseconds, while `fs.promises.stat` waits for a libuv pool thread,
   * which a busy server keeps waiting (measured in the fan-out bench).
   */
  #locate(name: string): { filePath: string; mtimeMs: number; size: number } | undefined {
    if (!SCENARIO_NAME_PATTERN.test(name)) return undefined;
    for (const extension of SCENARIO_EXTENSIONS) {
      const candidate = path.join(this.dir, name + extension);
      const info = statSync(candidate, { throwIfNoEntry: false });
      if (info?.isFile()) return { filePath: candidate, mtimeMs: info.mtimeMs, size: info.size };
    }
    return undefined;
  }

  /** Names of the scenarios present in the folder, sorted; empty when the folder is missing. */
  list(): string[] {
    let entries: string[];
    try {
      entries = readdirSync(this.dir);
    } catch {
      return [];
    }
    const names = new Set<string>();
    for (const entry of entries) {
      const extension = path.extname(entry);
      const stem = entry.slice(0, entry.length - extension.length);
      if (
        (SCENARIO_EXTENSIONS as readonly string[]).includes(extension) &&
        SCENARIO_NAME_PATTERN.test(stem)
      ) {
        names.add(stem);
      }
    }
    return [...names].sort();
  }

  notFound(name: string): TroupeError {
    const available = this.list();
    return new TroupeError(
      'model_not_found',
      `Scenario "${name}" not found in ${this.dir} (looked for ${SCENARIO_EXTENSIONS.map((e) => name + e).join(', ')}); ` +
        `available scenarios: ${available.length > 0 ? available.join(', ') : '(none)'}`,
      { details: { scenario: name, scenarioDir: this.dir, available } },
    );
  }

  /** The current content of a scenario; throws `model_not_found` when missing, `scenario_invalid` when malformed. */
  async load(name: string): Promise<Scenario> {
    const info = this.#locate(name);
    if (info === undefined) {
      this.#cache.delete(name);
      throw this.notFound(name);
    }
    const { filePath } = info;
    const cached = this.#cache.get(name);
    if (cached?.filePath === filePath && cached.mtimeMs === info.mtimeMs && cached.size === info.size) {
      return cached.scenario;
    }
    const scenario = loadScenarioFile(filePath);
    const entry = { filePath, mtimeMs: info.mtimeMs, size: info.size, scenario };
    this.#cache.set(name, entry);
    // A file that fails to parse is not cached: the next call reads it again (it may have been fixed).
    scenario.catch(() => {
      if (this.#cache.get(name) === entry) this.#cache.delete(name);
    });
    return scenario;
  }
}
