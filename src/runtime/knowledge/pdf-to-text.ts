import { TroupeError } from '../../core/errors.js';
import { checkPdfDecodedSize } from './extraction/check-pdf-decoded-size.js';

export interface PdfText {
  /** Text of each page, in order (page 1 first). */
  pages: string[];
}

export interface PdfLimits {
  maxPages: number;
  maxTextChars: number;
  /** What its streams may decompress to in all (`checkPdfDecodedSize`). */
  maxDecodedBytes: number;
}

function isTextItem(item: unknown): item is { str: string; hasEOL: boolean } {
  return typeof item === 'object' && item !== null && 'str' in item && typeof item.str === 'string';
}

function pageText(items: readonly unknown[]): string {
  let text = '';
  for (const item of items) {
    if (!isTextItem(item)) continue;
    text += item.str;
    if (item.hasEOL) text += '\n';
  }
  return text
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * The text of a PDF, page by page, through pdf.js (the legacy build, which runs on Node; in Node it parses
 * on the calling thread, which is the extraction worker's: `extraction/document-extractor.ts`). Nothing
 * is rendered and no fonts are loaded: text content only. Decompressed bytes, pages and extracted
 * characters are capped, so a small file cannot expand without bound.
 */
export async function pdfToText(bytes: Uint8Array, fileName: string, limits: PdfLimits): Promise<PdfText> {
  checkPdfDecodedSize(bytes, fileName, limits.maxDecodedBytes);
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  let document: Awaited<ReturnType<typeof pdfjs.getDocument>['promise']>;
  try {
    document = await pdfjs.getDocument({
      // A copy: pdf.js may take ownership of the buffer it is given.
      data: new Uint8Array(bytes),
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      stopAtErrors: false,
      verbosity: 0,
    }).promise;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TroupeError('document_unreadable', `${fileName} is not a readable PDF: ${reason}`);
  }
  try {
    if (document.numPages > limits.maxPages) {
      throw new TroupeError(
        'payload_too_large',
        `${fileName} has ${document.numPages} pages; the limit is ${limits.maxPages}`,
        {
          details: { max_pages: limits.maxPages },
        },
      );
    }
    const pages: string[] = [];
    let total = 0;
    for (let number = 1; number <= document.numPages; number += 1) {
      const page = await document.getPage(number);
      const content = await page.getTextContent();
      const text = pageText(content.items);
      page.cleanup();
      total += text.length;
      if (total > limits.maxTextChars) {
        throw new TroupeError(
          'payload_too_large',
          `${fileName} holds more than ${limits.maxTextChars} characters of text`,
          {
            details: { max_text_chars: limits.maxTextChars },
          },
        );
      }
      pages.push(text);
    }
    return { pages };
  } catch (error) {
    if (error instanceof TroupeError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new TroupeError('document_unreadable', `${fileName}: the PDF text could not be read: ${reason}`);
  } finally {
    await document.destroy();
  }
}
