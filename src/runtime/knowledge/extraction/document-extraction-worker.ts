import { parentPort } from 'node:worker_threads';
import { TroupeError } from '../../../core/errors.js';
import { extractDocument, type ExtractionJob } from './extract-document.js';

/*
 * The extraction worker thread's entry (started by document-extractor.ts): reads one document per message
 * and answers with its chunks, or with the error as plain data (a TroupeError does not survive the copy
 * between threads as one).
 */

export type ExtractionReply =
  | { ok: true; document: Awaited<ReturnType<typeof extractDocument>> }
  | { ok: false; code: TroupeError['code']; message: string; details?: Record<string, unknown> };

async function answer(job: ExtractionJob): Promise<ExtractionReply> {
  try {
    return { ok: true, document: await extractDocument(job) };
  } catch (error) {
    if (error instanceof TroupeError)
      return {
        ok: false,
        code: error.code,
        message: error.message,
        ...(error.details ? { details: { ...error.details } } : {}),
      };
    return { ok: false, code: 'internal', message: error instanceof Error ? error.message : String(error) };
  }
}

parentPort?.on('message', (job: ExtractionJob) => {
  void answer(job).then((reply) => parentPort?.postMessage(reply));
});
