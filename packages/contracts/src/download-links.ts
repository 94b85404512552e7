/**
 * Signed links (docs/design.md, The agent protocol): the API decides who may download or upload and answers
 * a short-lived URL on the node; the node checks only the signature, the expiry, the purpose, the server
 * and the path or backup (and, for an upload, the size and whether it may replace a file), then streams
 * from or to its disk. Both sides use this one definition of what is signed.
 *
 * The signing key is derived from the node token, `HMAC-SHA256(token, "spawnpoint download links v1")`:
 * the API and the node already share that secret (no second one to provision or rotate; a new token makes
 * every link signed with the old one invalid), and the derived key is never the token itself, so a link
 * that leaks reveals nothing that could be used as the bearer credential of the node's API.
 *
 * Web Crypto only (no `node:` import), so this module may sit in the shared contracts.
 */
import { z } from 'zod';

/** How long a signed link works after the API made it. A transfer that started goes on past it. */
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

/**
 * What one upload link allows: one file of exactly `size` bytes written to one path of one server, replacing
 * a file there only when `overwrite`, until `expires`. `actorId` is who asked for the link and `ip` the
 * address they asked from (as the API saw it, like every other entry of the log): the node names both when
 * it reports the finished upload, so the server's activity log says who uploaded what, from where. Both are
 * signed, so nobody can upload under another name or address.
 */
export interface UploadGrant {
  purpose: 'file-upload';
  serverId: string;
  path: string;
  size: number;
  overwrite: boolean;
  actorId: string;
  /** Absent in links made before it was signed: those still verify, and log no address. */
  ip?: string | undefined;
  expires: number;
}

export type LinkGrant = DownloadGrant | UploadGrant;

const signature = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'This link is not valid.');
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
/** The query of a signed upload link (`agentEndpoints.signedFileUpload`); the body is the file itself. */
export const signedUploadQuery = z.object({
  path: z.string().min(1).max(4096),
  size: z.coerce
    .number()
    .int()
    .min(0)
    .max(2 ** 50),
  overwrite: z.enum(['true', 'false']),
  actor: z.string().min(1).max(64),
  ip: z.string().min(1).max(64).optional(),
  expires,
  signature,
});

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

/**
 * Every field, unambiguously (JSON of an array: no separator inside a path can shift a field). Each kind
 * starts with its own tag, so no download link's signature can ever pass for an upload's or the reverse.
 */
function message(grant: LinkGrant): Uint8Array<ArrayBuffer> {
  const fields =
    grant.purpose === 'file-upload'
      ? [
          'spawnpoint-upload-v1',
          grant.purpose,
          grant.serverId,
          grant.path,
          grant.size,
          grant.overwrite,
          grant.actorId,
          grant.expires,
          // Last and only when there is one: a link without it is signed as before.
          ...(grant.ip === undefined ? [] : [grant.ip]),
        ]
      : ['spawnpoint-download-v1', grant.purpose, grant.serverId, grant.subject, grant.name, grant.expires];
  return encoder.encode(JSON.stringify(fields));
}

export interface LinkSigner {
  sign(grant: LinkGrant): Promise<string>;
  /** Whether `signature` was made for exactly this grant (compared in constant time by Web Crypto). */
  verify(grant: LinkGrant, signature: string): Promise<boolean>;
}

/** Signs and checks links with the key derived from one node's token. */
export function linkSigner(nodeToken: string): LinkSigner {
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
