import { chunkText, type TextChunk } from '../../../core/knowledge/chunk-text.js';
import type { DocumentMediaType } from '../../../core/records/knowledge.js';
import { extractDocumentText, type ExtractLimits } from '../extract-document-text.js';

/** One document to read: what the extraction worker receives. */
export interface ExtractionJob {
  bytes: Uint8Array;
  mediaType: DocumentMediaType;
  fileName: string;
  limits: ExtractLimits;
}

/** Its text, reduced to what is stored: the indexed chunks and the counts of the document record. */
export interface ExtractedDocument {
  text_chars: number;
  page_count: number | null;
  chunks: TextChunk[];
}

/** Text extraction and chunking of one document: the work that runs in the extraction worker thread. */
export async function extractDocument(job: ExtractionJob): Promise<ExtractedDocument> {
  const extracted = await extractDocumentText(job.bytes, job.mediaType, job.fileName, job.limits);
  const chunks = chunkText(extracted.text, { markdown: extracted.markdown, segments: extracted.segments });
  return { text_chars: extracted.text.length, page_count: extracted.page_count, chunks };
}
