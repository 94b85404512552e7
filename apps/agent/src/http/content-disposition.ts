/**
 * `Content-Disposition: attachment` for a download, per RFC 6266: `filename` carries an ASCII fallback
 * for old clients and, when the real name is not plain ASCII, `filename*` carries it exactly as UTF-8
 * (RFC 8187), which every current browser prefers. Without it "ñandú.txt" arrived as "_and__.txt".
 */
export function attachmentDisposition(filename: string): string {
  const fallback = asciiFallback(filename);
  if (fallback === filename) return `attachment; filename="${fallback}"`;
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeRfc8187(filename)}`;
}

/**
 * Accents are dropped ("ñ" → "n"), anything else outside printable ASCII, and the quote and backslash
 * that would end or escape the quoted string, become "_".
 */
function asciiFallback(filename: string): string {
  const plain = filename
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]|["\\]/g, '_');
  return plain.trim() ? plain : 'download';
}

/** Percent-encodes everything but RFC 8187's attr-char (encodeURIComponent leaves ' ( ) * as they are). */
function encodeRfc8187(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
