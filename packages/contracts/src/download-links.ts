/**
 * Signed download links (issue 18): the API decides who may download and answers a short-lived URL on
 * the node; the node checks only the signature, the expiry, the purpose, the server and the path or
 * backup, then streams from its disk. Both sides use this one definition of what is signed.
 *
 * The signing key is derived from the node token, `HMAC-SHA256(token, "spawnpoint download links v1")`:
 * the API and the node already share that secret (no second one to provision or rotate; a new token makes
 * every link signed with the old one invalid), and the derived key is never the token itself, so a link
 * that leaks reveals nothing that could be used as the bearer credential of the node's API.
 *
 * Web Crypto only (no `node:` import), so this module may sit in the shared contracts.
 */
import { z } from 'zod';

/** How long a signed link works after the API made it. A download that started goes on past it. */
export const DOWNLOAD_LINK_SECONDS = 60;

export const downloadPurpose = z.enum(['file-download', 'backup-download']);
export type DownloadPurpose = z.infer<typeof downloadPurpose>;

/** What one link allows: exactly one purpose, server, path or backup, saved-as name, until `expires`. */
export interface DownloadGrant {
  purpose: DownloadPurpose;
  serverId: string;
  /** The path of a `file-download`, the backup id of a `backup-download`. */
  subject: string;
  /** The name the browser saves it as (Content-Disposition); a folder gets `.tar.gz` added by the node. */
  name: string;
  /** Unix time in seconds. */
  expires: number;
}

const signature = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'This download link is not valid.');
const expires = z.coerce
  .number()
  .int()
  .min(0)
  .max(2 ** 40);
const savedName = z.string().min(1).max(1024);

/** The query of a signed file link (`agentEndpoints.signedFileDownload`). */
export const signedFileQuery = z.object({ path: z.string().max(4096), name: savedName, expires, signature });
/** The query of a signed backup link (`agentEndpoints.signedBackupDownload`). */
export const signedBackupQuery = z.object({ name: savedName, expires, signature });

const encoder = new TextEncoder();

function base64url(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Every field, unambiguously (JSON of an array: no separator inside a path can shift a field). */
function message(grant: DownloadGrant): Uint8Array<ArrayBuffer> {
  return encoder.encode(
    JSON.stringify(['spawnpoint-download-v1', grant.purpose, grant.serverId, grant.subject, grant.name, grant.expires]),
  );
}

export interface DownloadSigner {
  sign(grant: DownloadGrant): Promise<string>;
  /** Whether `signature` was made for exactly this grant (compared in constant time by Web Crypto). */
  verify(grant: DownloadGrant, signature: string): Promise<boolean>;
}

/** Signs and checks links with the key derived from one node's token. */
export function downloadSigner(nodeToken: string): DownloadSigner {
  const key = (async () => {
    const tokenKey = await crypto.subtle.importKey('raw', encoder.encode(nodeToken), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const derived = await crypto.subtle.sign('HMAC', tokenKey, encoder.encode('spawnpoint download links v1'));
    return crypto.subtle.importKey('raw', derived, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  })();
  return {
    async sign(grant) {
      return base64url(new Uint8Array(await crypto.subtle.sign('HMAC', await key, message(grant))));
    },
    async verify(grant, given) {
      if (!signature.safeParse(given).success) return false;
      return crypto.subtle.verify('HMAC', await key, fromBase64url(given), message(grant));
    },
  };
}
