import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Reads the `.eml` files the embedded mailer wrote for an address, newest last. Only whole mails: the
 * mailer writes `….eml.part` and renames it, so a file listed here is complete and stays.
 */
export function mailsTo(dataDir: string, address: string): string[] {
  const dir = path.join(dataDir, 'mail');
  let files: string[] = [];
  try {
    files = readdirSync(dir)
      .filter((file) => file.endsWith('.eml'))
      .sort();
  } catch {
    return [];
  }
  return files
    .map((file) => decodeQuotedPrintable(readFileSync(path.join(dir, file), 'utf8')))
    .filter((text) => text.includes(`To: ${address}`));
}

export function decodeQuotedPrintable(text: string): string {
  return text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
