import { TroupeError } from '../../core/errors.js';
import type { NewKnowledgeChunk, NewKnowledgeDocument } from '../../core/ports/knowledge-storage.js';
import { DOCUMENT_MEDIA_TYPES } from '../../core/records/knowledge.js';
import { detectMediaType, documentName } from './detect-media-type.js';
import type { DocumentExtractor } from './extraction/document-extractor.js';
import type { KnowledgeLimits } from './knowledge-limits.js';

export interface UploadedFile {
  /** The client's file name; only its last path segment is kept. */
  name: string;
  bytes: Uint8Array;
  /** The declared content type, used when the extension says nothing. */
  contentType?: string;
}

/** One document ready to store: its record and its indexed chunks. */
export interface PreparedDocument {
  document: NewKnowledgeDocument;
  chunks: NewKnowledgeChunk[];
}

/** Everything that can fail about a file, before anything is written. */
async function prepareDocument(
  sourceId: string,
  file: UploadedFile,
  limits: KnowledgeLimits,
  extractor: DocumentExtractor,
): Promise<PreparedDocument> {
  const name = documentName(file.name);
  if (name === '') {
    throw new TroupeError('validation_failed', 'Every uploaded document needs a file name', {
      details: { issues: [{ path: 'filename', message: 'missing file name', code: 'custom' }] },
    });
  }
  const mediaType = detectMediaType(name, file.contentType);
  if (mediaType === undefined) {
    throw new TroupeError(
      'unsupported_media_type',
      `${name}: knowledge sources read Markdown, text, HTML and PDF (${DOCUMENT_MEDIA_TYPES.join(', ')}); name the file .md, .txt, .html or .pdf`,
    );
  }
  const { chunks, text_chars, page_count } = await extractor.extract({
    bytes: file.bytes,
    mediaType,
    fileName: name,
    limits: {
      maxTextChars: limits.maxTextChars,
      maxPdfPages: limits.maxPdfPages,
      maxDecodedBytes: limits.maxDecodedBytes,
    },
  });
  if (chunks.length === 0) {
    throw new TroupeError(
      'document_unreadable',
      `${name} has no text to index${mediaType === 'application/pdf' ? ' (a scanned PDF needs OCR first)' : ''}`,
    );
  }
  return {
    document: {
      source_id: sourceId,
      name,
      media_type: mediaType,
      bytes: file.bytes.byteLength,
      text_chars,
      page_count,
    },
    chunks,
  };
}

/**
 * Extracts and chunks every file of one upload (in `extractor`'s worker thread), checking the whole upload
 * (count, names) first or on the way, so a bad file fails the upload before anything is stored.
 */
export async function prepareKnowledgeUpload(
  sourceId: string,
  files: readonly UploadedFile[],
  limits: KnowledgeLimits,
  extractor: DocumentExtractor,
): Promise<PreparedDocument[]> {
  if (files.length === 0) {
    throw new TroupeError('validation_failed', 'Send at least one document', {
      details: { issues: [{ path: 'file', message: 'no document in the upload', code: 'custom' }] },
    });
  }
  if (files.length > limits.maxFilesPerUpload) {
    throw new TroupeError(
      'validation_failed',
      `At most ${limits.maxFilesPerUpload} documents per upload, got ${files.length}`,
      {
        details: { issues: [{ path: 'file', message: 'too many documents', code: 'custom' }] },
      },
    );
  }
  const prepared: PreparedDocument[] = [];
  for (const file of files) prepared.push(await prepareDocument(sourceId, file, limits, extractor));
  const names = prepared.map((entry) => entry.document.name);
  const duplicate = names.find((name, index) => names.indexOf(name) !== index);
  if (duplicate !== undefined) {
    throw new TroupeError('validation_failed', `The upload holds two documents named ${duplicate}`, {
      details: { issues: [{ path: 'file', message: `duplicate name ${duplicate}`, code: 'custom' }] },
    });
  }
  return prepared;
}
