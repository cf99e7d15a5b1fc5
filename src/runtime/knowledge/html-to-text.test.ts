import { describe, expect, it } from 'vitest';
import { htmlToText } from './html-to-text.js';

describe('htmlToText', () => {
  it('keeps headings, paragraphs and list items as Markdown, dropping every tag', () => {
    const html = `<!doctype html><html><head><title>Page title</title><meta charset="utf-8"></head>
      <body><h1>Operations <small>guide</small></h1>
      <p>First   paragraph
      over two lines with <a href="/x">a link</a> and <b>bold</b>.</p>
      <h2>Steps</h2><ul><li>One</li><li>Two<br>still two</li></ul>
      <table><tr><td>cell a</td><td>cell b</td></tr></table></body></html>`;
    expect(htmlToText(html)).toBe(
      [
        '# Operations guide',
        '',
        'First paragraph over two lines with a link and bold.',
        '',
        '## Steps',
        '',
        '- One',
        '- Two',
        'still two',
        '',
        'cell a cell b',
      ].join('\n'),
    );
  });

  it('drops scripts, styles and other non-text elements with their content', () => {
    const html = `<p>before</p><script>alert("<p>not text</p>")</script><STYLE type="text/css">p { color: red }</STYLE>
      <noscript>enable js</noscript><template><p>hidden</p></template><svg><text>drawing</text></svg><!-- a <p>comment</p> -->
      <p data-x="a > b">after</p>`;
    expect(htmlToText(html)).toBe('before\n\nafter');
  });

  it('drops everything after an unterminated script', () => {
    expect(htmlToText('<p>kept</p><script>var x = "</p><p>never shown";')).toBe('kept');
  });

  it('decodes entities, keeps <pre> as written and escapes a leading #', () => {
    const html =
      '<p>Fish &amp; chips &lt;3 &#233;t&eacute; &#x1F600; &bogus; &#0;</p><pre>  two\n    lines</pre><p># not a heading</p>';
    expect(htmlToText(html)).toBe(
      'Fish & chips <3 été 😀 &bogus; \uFFFD\n\n  two\n    lines\n\n\\# not a heading',
    );
  });

  it('reads malformed markup as text without throwing', () => {
    expect(htmlToText('a < b and c > d <p unclosed="x')).toBe('a < b and c > d');
    expect(htmlToText('')).toBe('');
  });
});
