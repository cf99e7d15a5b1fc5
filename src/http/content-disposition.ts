/** RFC 5987 `ext-value` characters: everything else is percent-encoded. */
function encodeExtValue(value: string): string {
  return encodeURIComponent(value).replace(
    /['()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * `attachment` with an ASCII fallback name and the exact UTF-8 name (RFC 6266). Quotes, backslashes, control
 * characters and non-ASCII are replaced in the fallback, so no file name can break or extend the header.
 */
export function attachmentDisposition(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_') || 'download';
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeExtValue(fileName)}`;
}
