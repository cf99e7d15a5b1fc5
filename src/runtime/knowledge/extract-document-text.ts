import { TroupeError } from '../../core/errors.js';
import type { TextSegment } from '../../core/knowledge/chunk-text.js';
import type { DocumentMediaType } from '../../core/records/knowledge.js';
import { decodeText } from './decode-text.js';
import { htmlToText } from './html-to-text.js';
import { pdfToText } from './pdf-to-text.js';

export interface ExtractedText {
  text: string;
  /** Whether `#` lines are headings (Markdown, and HTML once converted). */
  markdown: boolean;
  /** PDF: one segment per page, so chunks carry page numbers and never straddle two pages. */
  segments?: TextSegment[];
  page_count: number | null;
}

export interface ExtractLimits {
  maxTextChars: number;
  maxPdfPages: number;
  maxDecodedBytes: number;
}

function bounded(text: string, fileName: string, limits: ExtractLimits): string {
  if (text.length > limits.maxTextChars) {
    throw new TroupeError(
      'payload_too_large',
      `${fileName} holds more than ${limits.maxTextChars} characters of text`,
      {
        details: { max_text_chars: limits.maxTextChars },
      },
    );
  }
  return text;
}

/** The searchable text of an uploaded document; offsets of its chunks point into `text`. */
export async function extractDocumentText(
  bytes: Uint8Array,
  mediaType: DocumentMediaType,
  fileName: string,
  limits: ExtractLimits,
): Promise<ExtractedText> {
  switch (mediaType) {
    case 'text/markdown':
      return {
        text: bounded(decodeText(bytes, fileName), fileName, limits),
        markdown: true,
        page_count: null,
      };
    case 'text/plain':
      return {
        text: bounded(decodeText(bytes, fileName), fileName, limits),
        markdown: false,
        page_count: null,
      };
    case 'text/html':
      return {
        text: bounded(htmlToText(decodeText(bytes, fileName)), fileName, limits),
        markdown: true,
        page_count: null,
      };
    case 'application/pdf': {
      const { pages } = await pdfToText(bytes, fileName, {
        maxPages: limits.maxPdfPages,
        maxTextChars: limits.maxTextChars,
        maxDecodedBytes: limits.maxDecodedBytes,
      });
      const segments: TextSegment[] = [];
      let text = '';
      pages.forEach((page, index) => {
        if (index > 0) text += '\n\n';
        segments.push({ start: text.length, end: text.length + page.length, page: index + 1 });
        text += page;
      });
      return { text, markdown: false, segments, page_count: pages.length };
    }
  }
}
