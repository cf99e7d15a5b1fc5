import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { TroupeError } from '../../../core/errors.js';
import type { KnowledgeLimits } from '../knowledge-limits.js';
import type { ExtractionReply } from './document-extraction-worker.js';
import type { ExtractedDocument, ExtractionJob } from './extract-document.js';

export type ExtractorLimits = Pick<
  KnowledgeLimits,
  'extractTimeoutMs' | 'extractHeapMb' | 'extractMemoryBytes'
>;

/** Reads documents off the main thread; `close` stops its worker. */
export interface DocumentExtractor {
  extract(job: ExtractionJob): Promise<ExtractedDocument>;
  close(): Promise<void>;
}

/** An idle worker is stopped after this long; the next document starts a new one. */
const IDLE_MS = 30_000;
const MEMORY_CHECK_MS = 50;
const WORKER_FILE = 'document-extraction-worker';

/**
 * A new extraction worker thread. Compiled (`npm run build`, the bench), its entry is the `.js` file beside
 * this one. From the TypeScript sources (`bin/troupe.js` under tsx, vitest) a worker thread starts without
 * the parent's loader hooks, so it registers tsx's own before importing the `.ts` entry.
 */
function startWorker(heapMb: number): Worker {
  const options = {
    resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
  };
  const compiled = import.meta.url.endsWith('.js');
  const entry = new URL(`./${WORKER_FILE}${compiled ? '.js' : '.ts'}`, import.meta.url);
  if (compiled) return new Worker(entry, options);
  const tsxRoot = path.dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  // tsx's ESM API (its package exports map `tsx/esm/api` to this file for `import`).
  const tsxApi = pathToFileURL(path.join(tsxRoot, 'dist', 'esm', 'api', 'index.mjs')).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(bootstrap, { ...options, eval: true });
}

function tooLarge(fileName: string, reason: string, details: Record<string, unknown>): TroupeError {
  return new TroupeError('document_too_large', `${fileName}: ${reason}`, { details });
}

/**
 * Text extraction in a worker thread, so no document stalls the server's event loop: one document at a
 * time, in one long-lived worker (stopped when idle) whose V8 heap is capped (`resourceLimits`); a
 * document that outruns `extractTimeoutMs`, or grows the process's resident memory past
 * `extractMemoryBytes` (memory outside the heap, which `resourceLimits` does not bound), has its worker
 * stopped and is refused `413 document_too_large`. The PDF reader itself refuses a decompression bomb
 * before decoding it (`checkPdfDecodedSize`); these caps hold for whatever it cannot see.
 */
export function createDocumentExtractor(limits: ExtractorLimits): DocumentExtractor {
  let worker: Worker | undefined;
  let idle: NodeJS.Timeout | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  function discard(stopped: Worker): void {
    if (worker === stopped) worker = undefined;
    void stopped.terminate();
  }

  function run(job: ExtractionJob): Promise<ExtractedDocument> {
    clearTimeout(idle);
    const current = (worker ??= startWorker(limits.extractHeapMb));
    current.ref();
    const baseline = process.memoryUsage.rss();
    return new Promise<ExtractedDocument>((resolve, reject) => {
      const settle = (outcome: () => void) => {
        clearTimeout(timer);
        clearInterval(memoryCheck);
        current.off('message', onMessage);
        current.off('error', onError);
        current.off('exit', onExit);
        outcome();
      };
      const stop = (error: TroupeError) =>
        settle(() => {
          discard(current);
          reject(error);
        });
      const timer = setTimeout(
        () =>
          stop(
            tooLarge(job.fileName, `reading it took longer than ${limits.extractTimeoutMs / 1000} s`, {
              max_extract_ms: limits.extractTimeoutMs,
            }),
          ),
        limits.extractTimeoutMs,
      );
      const memoryCheck = setInterval(() => {
        if (process.memoryUsage.rss() - baseline <= limits.extractMemoryBytes) return;
        stop(
          tooLarge(job.fileName, 'reading it needs more memory than one document may use', {
            max_extract_memory_bytes: limits.extractMemoryBytes,
          }),
        );
      }, MEMORY_CHECK_MS);
      const onMessage = (reply: ExtractionReply) =>
        settle(() => {
          if (reply.ok) resolve(reply.document);
          else
            reject(
              new TroupeError(reply.code, reply.message, reply.details ? { details: reply.details } : {}),
            );
        });
      const onError = (error: Error & { code?: string }) =>
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? stop(
              tooLarge(job.fileName, 'reading it needs more memory than one document may use', {
                max_extract_heap_mb: limits.extractHeapMb,
              }),
            )
          : stop(
              new TroupeError('internal', `Document extraction failed: ${error.message}`, { cause: error }),
            );
      const onExit = () =>
        stop(new TroupeError('internal', 'The document extraction worker stopped unexpectedly'));
      current.on('message', onMessage);
      current.on('error', onError);
      current.on('exit', onExit);
      // A copy the worker owns: the upload's bytes may be a view into a larger buffer.
      const bytes = job.bytes.slice();
      current.postMessage({ ...job, bytes }, [bytes.buffer]);
    }).finally(() => {
      if (worker !== current) return;
      current.unref();
      idle = setTimeout(() => discard(current), IDLE_MS);
      idle.unref();
    });
  }

  return {
    extract(job) {
      const result = queue.then(() => run(job));
      queue = result.catch(() => undefined);
      return result;
    },
    async close() {
      clearTimeout(idle);
      const current = worker;
      worker = undefined;
      await current?.terminate();
    },
  };
}

const shared = new Map<string, DocumentExtractor>();

/**
 * The process's extractor for these caps, made on first use: a worker thread is slow to start (it loads
 * pdf.js, and from the sources compiles through tsx), and documents are read one at a time anyway. Never
 * closed: an idle worker stops by itself and never holds the process open.
 */
export function sharedDocumentExtractor(limits: ExtractorLimits): DocumentExtractor {
  const key = `${limits.extractTimeoutMs}/${limits.extractHeapMb}/${limits.extractMemoryBytes}`;
  let extractor = shared.get(key);
  if (extractor === undefined) {
    extractor = createDocumentExtractor(limits);
    shared.set(key, extractor);
  }
  return extractor;
}
