import { describe, expect, it } from 'vitest';
import { attachmentDisposition } from './content-disposition.js';

describe('attachmentDisposition', () => {
  it('sends an ASCII fallback and the exact UTF-8 name', () => {
    expect(attachmentDisposition('report.md')).toBe(
      `attachment; filename="report.md"; filename*=UTF-8''report.md`,
    );
    expect(attachmentDisposition('résumé (1).pdf')).toBe(
      `attachment; filename="r_sum_ (1).pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%281%29.pdf`,
    );
  });

  it('cannot be broken out of by quotes, backslashes or line breaks', () => {
    const header = attachmentDisposition('a"b\\c\r\nSet-Cookie: x=1.txt');
    expect(header).not.toMatch(/[\r\n]/);
    expect(header.startsWith('attachment; filename="a_b_c__Set-Cookie: x=1.txt"; ')).toBe(true);
  });
});
