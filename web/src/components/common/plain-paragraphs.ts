/**
 * Letters, digits, spaces and the punctuation that means nothing to Markdown (GitHub flavour) in the middle of a
 * line. No `*_`[]<>#|~\&!@`, no tab or carriage return: any of those may make the text more than paragraphs.
 */
const PLAIN_CHARS = /^[\p{L}\p{N} \n,.;:?'"()/%$=+-]*$/u;
/** Line starts that open a block (list item, ordered item, setext underline) or an indented code block. */
const BLOCK_START = /^(?:[ ]|[-+=]|\p{N}+[.)])/mu;
/** GFM turns bare addresses into links. */
const AUTOLINK = /:\/\/|www\./i;

/**
 * The paragraphs of a text that Markdown would render as nothing but paragraphs, or null when it might render
 * anything else. The console shows such a text at once, as the Markdown renderer would (`<p>` per paragraph,
 * line breaks inside one kept as they are), instead of waiting for the renderer's chunk.
 */
export function plainParagraphs(text: string): string[] | null {
  if (!PLAIN_CHARS.test(text) || BLOCK_START.test(text) || AUTOLINK.test(text) || / \n| $/.test(text))
    return null;
  const trimmed = text.replace(/^\n+|\n+$/g, '');
  return trimmed === '' ? [] : trimmed.split(/\n{2,}/);
}
