import { describe, expect, it } from 'vitest';
import { contentTypeFor } from './content-type-for.js';
import { formatByteSize } from './format-byte-size.js';
import { messageWithAttachments } from './message-with-attachments.js';
import { FALLBACK_FILE_NAME, numberedFileName, sanitizeFileName } from './sanitize-file-name.js';

describe('sanitizeFileName', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\me\\Desktop\\notes.txt', 'notes.txt'],
    ['/abs/path/data.csv', 'data.csv'],
    ['.bashrc', 'bashrc'],
    ['...hidden.txt', 'hidden.txt'],
    ['..', FALLBACK_FILE_NAME],
    ['.', FALLBACK_FILE_NAME],
    ['', FALLBACK_FILE_NAME],
    ['   ', FALLBACK_FILE_NAME],
    ['dir/', FALLBACK_FILE_NAME],
    ['a\u0000b\u0007c\r\n.txt', 'abc.txt'],
    ['evil\u202Etxt.exe', 'eviltxt.exe'],
    ['  spaced name .md ', 'spaced name .md'],
    ['résumé 2024.docx', 'résumé 2024.docx'],
  ])('%j → %j', (raw, expected) => {
    expect(sanitizeFileName(raw)).toBe(expected);
  });

  it('bounds the name to 180 UTF-8 bytes and keeps the extension', () => {
    const long = `${'é'.repeat(300)}.pdf`;
    const cleaned = sanitizeFileName(long);
    expect(new TextEncoder().encode(cleaned).length).toBeLessThanOrEqual(180);
    expect(cleaned.endsWith('.pdf')).toBe(true);
    expect(sanitizeFileName('x'.repeat(400)).length).toBe(180);
  });

  it('numbers taken names before the extension', () => {
    expect(numberedFileName('report.pdf', 0)).toBe('report.pdf');
    expect(numberedFileName('report.pdf', 2)).toBe('report-2.pdf');
    expect(numberedFileName('archive.tar.gz', 1)).toBe('archive.tar-1.gz');
    expect(numberedFileName('Makefile', 3)).toBe('Makefile-3');
  });
});

describe('contentTypeFor', () => {
  it.each([
    ['report.md', 'text/markdown; charset=utf-8'],
    ['out/DATA.CSV', 'text/csv; charset=utf-8'],
    ['page.html', 'text/html; charset=utf-8'],
    ['doc.pdf', 'application/pdf'],
    ['img.PNG', 'image/png'],
    ['noext', 'application/octet-stream'],
    ['.env', 'application/octet-stream'],
    ['x.unknownext', 'application/octet-stream'],
  ])('%s → %s', (name, type) => {
    expect(contentTypeFor(name)).toBe(type);
  });
});

describe('attachment notes', () => {
  it('formats sizes as people read them', () => {
    expect([0, 1023, 1024, 12 * 1024 + 300, 3.4 * 1024 * 1024].map(formatByteSize)).toEqual([
      '0 B',
      '1023 B',
      '1 KB',
      '12 KB',
      '3.4 MB',
    ]);
  });

  it('lists the attached files by workdir path after the text', () => {
    expect(messageWithAttachments('Summarise these', [])).toBe('Summarise these');
    expect(
      messageWithAttachments('Summarise these', [
        { path: 'uploads/report.pdf', size: 12 * 1024 },
        { path: 'uploads/data.csv', size: 3 },
      ]),
    ).toBe('Summarise these\n\nAttached files: uploads/report.pdf (12 KB), uploads/data.csv (3 B)');
  });
});
