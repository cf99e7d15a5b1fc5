import { describe, expect, it } from 'vitest';
import { chunkText } from '../../core/knowledge/chunk-text.js';
import { detectMediaType, documentName } from './detect-media-type.js';
import { extractDocumentText } from './extract-document-text.js';
import { makePdf } from '../../../test/helpers/knowledge/make-pdf.js';
import { troupeFailure } from '../../../test/helpers/troupe-failure.js';

const LIMITS = { maxTextChars: 10_000, maxPdfPages: 5, maxDecodedBytes: 1024 * 1024 };
const utf8 = (text: string) => new TextEncoder().encode(text);

describe('extractDocumentText', () => {
  it('reads a PDF page by page, so every chunk knows its page', async () => {
    const pdf = makePdf([
      ['Quarterly report', 'Revenue grew in every region.'],
      ['Appendix (tables)', 'Churn stayed below two percent.'],
    ]);
    const extracted = await extractDocumentText(pdf, 'application/pdf', 'report.pdf', LIMITS);
    expect(extracted.page_count).toBe(2);
    expect(extracted.text).toBe(
      'Quarterly report\nRevenue grew in every region.\n\nAppendix (tables)\nChurn stayed below two percent.',
    );
    const chunks = chunkText(extracted.text, { segments: extracted.segments });
    expect(chunks.map((chunk) => [chunk.page, chunk.text])).toEqual([
      [1, 'Quarterly report\nRevenue grew in every region.'],
      [2, 'Appendix (tables)\nChurn stayed below two percent.'],
    ]);
  });

  it('refuses what is not a PDF, and PDFs over the page or text limit', async () => {
    expect(
      (await troupeFailure(extractDocumentText(utf8('plain words'), 'application/pdf', 'fake.pdf', LIMITS)))
        .code,
    ).toBe('document_unreadable');
    const long = makePdf(Array.from({ length: 6 }, (_, index) => [`page ${index}`]));
    expect((await troupeFailure(extractDocumentText(long, 'application/pdf', 'long.pdf', LIMITS))).code).toBe(
      'payload_too_large',
    );
    // Lines stay on the page (pdf.js leaves out text drawn outside it): 45 lines of 60 characters a page.
    const page = Array.from({ length: 45 }, (_, line) =>
      `${String(line).padStart(2, '0')} ${'words '.repeat(10).trim()}`.padEnd(60, '.'),
    );
    const wordy = makePdf([page, page, page, page, page]);
    expect(
      (await troupeFailure(extractDocumentText(wordy, 'application/pdf', 'wordy.pdf', LIMITS))).code,
    ).toBe('payload_too_large');
  });

  it('strips HTML to Markdown-style text, without scripts or styles', async () => {
    const html = utf8('<h1>Guide</h1><script>steal()</script><style>h1{}</style><p>Use the <b>CLI</b>.</p>');
    const extracted = await extractDocumentText(html, 'text/html', 'guide.html', LIMITS);
    expect(extracted).toMatchObject({ text: '# Guide\n\nUse the CLI.', markdown: true, page_count: null });
  });

  it('decodes text (BOM, CRLF, Windows-1252) and refuses binary files', async () => {
    const markdown = await extractDocumentText(
      utf8('\uFEFF# Title\r\n\r\nBody'),
      'text/markdown',
      'a.md',
      LIMITS,
    );
    expect(markdown).toMatchObject({ text: '# Title\n\nBody', markdown: true });
    const latin = await extractDocumentText(
      new Uint8Array([0x63, 0x61, 0x66, 0xe9]),
      'text/plain',
      'b.txt',
      LIMITS,
    );
    expect(latin).toMatchObject({ text: 'café', markdown: false });
    expect(
      (
        await troupeFailure(
          extractDocumentText(new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x00]), 'text/plain', 'c.txt', LIMITS),
        )
      ).code,
    ).toBe('document_unreadable');
    expect(
      (await troupeFailure(extractDocumentText(utf8('z'.repeat(10_001)), 'text/plain', 'd.txt', LIMITS)))
        .code,
    ).toBe('payload_too_large');
  });
});

describe('detectMediaType and documentName', () => {
  it('decides by extension first, then by content type', () => {
    expect(detectMediaType('notes.MD', 'application/octet-stream')).toBe('text/markdown');
    expect(detectMediaType('page.htm', undefined)).toBe('text/html');
    expect(detectMediaType('scan.pdf', 'text/plain')).toBe('application/pdf');
    expect(detectMediaType('upload', 'text/plain; charset=utf-8')).toBe('text/plain');
    expect(detectMediaType('archive.zip', 'application/zip')).toBeUndefined();
    expect(detectMediaType('noext', undefined)).toBeUndefined();
  });

  it('keeps the last path segment without control characters', () => {
    expect(documentName('../../etc/passwd')).toBe('passwd');
    expect(documentName('C:\\docs\\guide.md')).toBe('guide.md');
    expect(documentName('bad\u0000name\n.md')).toBe('badname.md');
    expect(documentName('  ')).toBe('');
  });
});
