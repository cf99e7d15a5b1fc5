import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL_CALL_SETTINGS } from './model-call-settings.js';
import { loadConfig } from './config.js';
import { isTroupeError } from './core/errors.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'troupe-config-'));

describe('loadConfig: model calls', () => {
  it('defaults to 4 retries, no provider limits', () => {
    expect(loadConfig({}, dir).modelCalls).toEqual(DEFAULT_MODEL_CALL_SETTINGS);
    expect(DEFAULT_MODEL_CALL_SETTINGS.maxRetries).toBe(4);
  });

  it('reads the retry settings and a YAML or JSON limits file', () => {
    writeFileSync(path.join(dir, 'limits.yaml'), 'providers:\n  openai:\n    concurrency: 3\n');
    writeFileSync(
      path.join(dir, 'limits.json'),
      JSON.stringify({ providers: { anthropic: { requests_per_minute: 50 } } }),
    );
    const yaml = loadConfig(
      { TROUPE_MODEL_LIMITS: 'limits.yaml', TROUPE_MODEL_MAX_RETRIES: '2', TROUPE_MODEL_MAX_WAIT_MS: '5000' },
      dir,
    ).modelCalls;
    expect(yaml).toMatchObject({ maxRetries: 2, maxWaitMs: 5000, limits: { openai: { concurrency: 3 } } });
    expect(loadConfig({ TROUPE_MODEL_LIMITS: 'limits.json' }, dir).modelCalls.limits).toEqual({
      anthropic: { requests_per_minute: 50 },
    });
  });

  it('refuses a limits file it cannot use, naming the file and the field', () => {
    writeFileSync(path.join(dir, 'bad.yaml'), 'providers:\n  openai:\n    concurrency: -1\n');
    for (const file of ['bad.yaml', 'missing.yaml']) {
      let thrown: unknown;
      try {
        loadConfig({ TROUPE_MODEL_LIMITS: file }, dir);
      } catch (error) {
        thrown = error;
      }
      expect(isTroupeError(thrown, 'config_invalid')).toBe(true);
      expect((thrown as Error).message).toContain(`TROUPE_MODEL_LIMITS (${file})`);
    }
    expect(() => loadConfig({ TROUPE_MODEL_LIMITS: 'bad.yaml' }, dir)).toThrow(
      /providers\.openai\.concurrency/,
    );
  });
});

describe('loadConfig: openai-compatible endpoints', () => {
  it('sends a prompt_cache_key only to an endpoint that opts in', () => {
    const config = loadConfig(
      {
        TROUPE_OPENAI_COMPATIBLE_VLLM_BASE_URL: 'http://127.0.0.1:8000/v1',
        TROUPE_OPENAI_COMPATIBLE_VLLM_PROMPT_CACHE_KEY: '1',
        TROUPE_OPENAI_COMPATIBLE_OLLAMA_BASE_URL: 'http://127.0.0.1:11434/v1',
      },
      dir,
    );
    expect(config.openaiCompatible.vllm?.promptCacheKey).toBe(true);
    expect(config.openaiCompatible.ollama).not.toHaveProperty('promptCacheKey');
    expect(() =>
      loadConfig(
        {
          TROUPE_OPENAI_COMPATIBLE_VLLM_BASE_URL: 'http://127.0.0.1:8000/v1',
          TROUPE_OPENAI_COMPATIBLE_VLLM_PROMPT_CACHE_KEY: 'sometimes',
        },
        dir,
      ),
    ).toThrow('TROUPE_OPENAI_COMPATIBLE_VLLM_PROMPT_CACHE_KEY must be true or false');
  });
});

describe('loadConfig: PostgreSQL', () => {
  it('prepares statements unless TROUPE_DATABASE_PREPARED_STATEMENTS turns them off', () => {
    expect(loadConfig({}, dir).databasePreparedStatements).toBe(true);
    expect(loadConfig({ TROUPE_DATABASE_PREPARED_STATEMENTS: '' }, dir).databasePreparedStatements).toBe(
      true,
    );
    expect(loadConfig({ TROUPE_DATABASE_PREPARED_STATEMENTS: 'false' }, dir).databasePreparedStatements).toBe(
      false,
    );
    expect(loadConfig({ TROUPE_DATABASE_PREPARED_STATEMENTS: '1' }, dir).databasePreparedStatements).toBe(
      true,
    );
    let error: unknown;
    try {
      loadConfig({ TROUPE_DATABASE_PREPARED_STATEMENTS: 'sometimes' }, dir);
    } catch (thrown) {
      error = thrown;
    }
    expect(isTroupeError(error) && error.code).toBe('config_invalid');
  });
});
