import { afterEach, describe, expect, it } from 'vitest';
import { makePdf, makePdfWithStream, zerosZlibStream } from '../../../../test/helpers/knowledge/make-pdf.js';
import { DEFAULT_KNOWLEDGE_LIMITS } from '../knowledge-limits.js';
import {
  createDocumentExtractor,
  type DocumentExtractor,
  type ExtractorLimits,
} from './document-extractor.js';
import type { ExtractionJob } from './extract-document.js';
import { troupeFailure } from '../../../../test/helpers/troupe-failure.js';

const MIB = 1024 * 1024;
const LIMITS: ExtractionJob['limits'] = {
  maxTextChars: DEFAULT_KNOWLEDGE_LIMITS.maxTextChars,
  maxPdfPages: DEFAULT_KNOWLEDGE_LIMITS.maxPdfPages,
  maxDecodedBytes: DEFAULT_KNOWLEDGE_LIMITS.maxDecodedBytes,
};
const ENOUGH: ExtractorLimits = {
  extractTimeoutMs: 60_000,
  extractHeapMb: DEFAULT_KNOWLEDGE_LIMITS.extractHeapMb,
  extractMemoryBytes: DEFAULT_KNOWLEDGE_LIMITS.extractMemoryBytes,
};

let extractors: DocumentExtractor[] = [];
afterEach(async () => {
  await Promise.all(extractors.map((extractor) => extractor.close()));
  extractors = [];
});

function extractor(limits: Partial<ExtractorLimits> = {}): DocumentExtractor {
  const created = createDocumentExtractor({ ...ENOUGH, ...limits });
  extractors.push(created);
  return created;
}

const pdfJob = (bytes: Uint8Array, fileName = 'doc.pdf'): ExtractionJob => ({
  bytes,
  mediaType: 'application/pdf',
  fileName,
  limits: LIMITS,
});

// A new worker loads pdf.js (and, from the sources, compiles through tsx): seconds on a loaded machine.
describe('createDocumentExtractor: documents read in a worker thread', { timeout: 60_000 }, () => {
  it('reads Markdown and PDF into chunks, one document after another in one worker', async () => {
    const reader = extractor();
    const [markdown, pdf] = await Promise.all([
      reader.extract({
        bytes: new TextEncoder().encode('# Title\n\nSome words.'),
        mediaType: 'text/markdown',
        fileName: 'a.md',
        limits: LIMITS,
      }),
      reader.extract(pdfJob(makePdf([['First page'], ['Second page']]))),
    ]);
    expect(markdown).toMatchObject({ text_chars: 20, page_count: null });
    expect(markdown.chunks.map((chunk) => [chunk.heading_path, chunk.text])).toEqual([
      [['Title'], '# Title\n\nSome words.'],
    ]);
    expect(pdf.page_count).toBe(2);
    expect(pdf.chunks.map((chunk) => [chunk.page, chunk.text])).toEqual([
      [1, 'First page'],
      [2, 'Second page'],
    ]);
  });

  it('refuses a decompression bomb with document_too_large, and keeps the error codes of the reader', async () => {
    const reader = extractor();
    const job = pdfJob(makePdfWithStream(zerosZlibStream(64)), 'bomb.pdf');
    const bomb = await troupeFailure(
      reader.extract({ ...job, limits: { ...LIMITS, maxDecodedBytes: 8 * MIB } }),
    );
    expect(bomb.code).toBe('document_too_large');
    expect(bomb.message).toBe(
      'bomb.pdf: its compressed streams expand to more than 8 MiB; the limit for one PDF',
    );
    expect(bomb.details).toEqual({ max_decoded_bytes: 8 * MIB });
    const fake = await troupeFailure(
      reader.extract(pdfJob(new TextEncoder().encode('not a pdf'), 'fake.pdf')),
    );
    expect(fake.code).toBe('document_unreadable');
    // The worker that refused them reads the next document.
    expect((await reader.extract(pdfJob(makePdf([['Again']])))).chunks[0]?.text).toBe('Again');
  });

  it('stops a document that runs past the time cap, and reads the next one in a new worker', async () => {
    const reader = extractor({ extractTimeoutMs: 1 });
    const slow = await troupeFailure(reader.extract(pdfJob(makePdf([['Page']]))));
    expect(slow.code).toBe('document_too_large');
    expect(slow.message).toBe('doc.pdf: reading it took longer than 0.001 s');
    expect(slow.details).toEqual({ max_extract_ms: 1 });
  });

  it('stops a document that grows the process past the memory cap', async () => {
    // A new worker alone (its isolate, pdf.js) takes more than one byte of resident memory.
    const reader = extractor({ extractMemoryBytes: 1 });
    const hungry = await troupeFailure(reader.extract(pdfJob(makePdf([['Page']]))));
    expect(hungry.code).toBe('document_too_large');
    expect(hungry.details).toEqual({ max_extract_memory_bytes: 1 });
  });

  it('stops a worker whose heap runs out, and answers document_too_large', async () => {
    const reader = extractor({ extractHeapMb: 1 });
    const error = await troupeFailure(reader.extract(pdfJob(makePdf([['Page']]))));
    expect(error.code).toBe('document_too_large');
    expect(error.details).toEqual({ max_extract_heap_mb: 1 });
  });
});
