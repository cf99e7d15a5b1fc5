import type { DocumentMediaType } from '../../core/records/knowledge.js';

const BY_EXTENSION: Record<string, DocumentMediaType> = {
  md: 'text/markdown',
  markdown: 'text/markdown',
  mdown: 'text/markdown',
  mkd: 'text/markdown',
  txt: 'text/plain',
  text: 'text/plain',
  html: 'text/html',
  htm: 'text/html',
  xhtml: 'text/html',
  pdf: 'application/pdf',
};

const BY_CONTENT_TYPE: Record<string, DocumentMediaType> = {
  'text/markdown': 'text/markdown',
  'text/x-markdown': 'text/markdown',
  'text/plain': 'text/plain',
  'text/html': 'text/html',
  'application/xhtml+xml': 'text/html',
  'application/pdf': 'application/pdf',
};

/**
 * The document type of an upload: the file extension decides (browsers and curl often send a generic
 * content type), then the declared content type. Undefined: a format knowledge sources do not read.
 */
export function detectMediaType(
  fileName: string,
  contentType: string | undefined,
): DocumentMediaType | undefined {
  const extension = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase();
  const byExtension = extension === undefined ? undefined : BY_EXTENSION[extension];
  if (byExtension !== undefined) return byExtension;
  const base = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return BY_CONTENT_TYPE[base];
}

/** A document name from an uploaded file name: its last path segment, without control characters. */
export function documentName(fileName: string): string {
  const base = fileName.split(/[/\\]/).pop() ?? '';
  return base
    .replace(/\p{Cc}/gu, '')
    .trim()
    .slice(0, 200);
}
