/** Content types by lower-case extension; anything else is `application/octet-stream`. */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  txt: 'text/plain',
  log: 'text/plain',
  md: 'text/markdown',
  markdown: 'text/markdown',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  mjs: 'text/javascript',
  ts: 'text/plain',
  py: 'text/x-python',
  sh: 'text/x-shellscript',
  json: 'application/json',
  xml: 'application/xml',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  pdf: 'application/pdf',
  zip: 'application/zip',
  gz: 'application/gzip',
  tgz: 'application/gzip',
  tar: 'application/x-tar',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

/** Every content type a download may answer with (as `contentTypeFor` names them, parameters included). */
export const KNOWN_CONTENT_TYPES: readonly string[] = [
  ...new Set(
    Object.values(BY_EXTENSION).map((type) => (type.startsWith('text/') ? `${type}; charset=utf-8` : type)),
  ),
  DEFAULT_CONTENT_TYPE,
];

/** The content type of a file name, by its extension (case-insensitive); text types say UTF-8. */
export function contentTypeFor(fileName: string): string {
  const base = fileName.split(/[\\/]/).at(-1) ?? '';
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return DEFAULT_CONTENT_TYPE;
  const type = BY_EXTENSION[base.slice(dot + 1).toLowerCase()];
  if (type === undefined) return DEFAULT_CONTENT_TYPE;
  return type.startsWith('text/') ? `${type}; charset=utf-8` : type;
}
