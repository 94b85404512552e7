/*
 * The signed links a browser uses to reach a node directly (a download, an upload): made by NodeRegistry
 * (nodes.ts) for a connected node once the caller has checked who may.
 */
import { agentEndpoints, DOWNLOAD_LINK_SECONDS, fillPath, type LinkSigner } from '@spawnpoint/contracts';

/** Where browsers reach a node, and the signer of its links. */
export interface LinkBase {
  base: string;
  signer: LinkSigner;
}

export type DownloadGrant =
  | { purpose: 'file-download'; serverId: string; path: string; name: string }
  | { purpose: 'backup-download'; serverId: string; backupId: string; name: string };

export type UploadGrant = { serverId: string; path: string; size: number; overwrite: boolean; actorId: string; ip: string };

/**
 * A short-lived link on the node that lets a browser download exactly one file or folder (`path`) or
 * one backup (`backupId`) of one server, saved as `name`: the caller has checked who may; the node checks
 * only the signature (key derived from the node token), expiry, purpose, server and path or backup.
 * Made only while the node is connected, as every other call (a node that is away → NODE_UNAVAILABLE).
 */
export async function downloadLinkOf({ base, signer }: LinkBase, grant: DownloadGrant): Promise<string> {
  const { purpose, serverId, name } = grant;
  const expires = Math.floor(Date.now() / 1000) + DOWNLOAD_LINK_SECONDS;
  const subject = grant.purpose === 'file-download' ? grant.path : grant.backupId;
  const signature = await signer.sign({ purpose, serverId, subject, name, expires });
  const path =
    grant.purpose === 'file-download'
      ? fillPath(agentEndpoints.signedFileDownload.path, { serverId }, { path: grant.path, name, expires, signature })
      : fillPath(agentEndpoints.signedBackupDownload.path, { serverId, backupId: grant.backupId }, { name, expires, signature });
  return `${base}${path}`;
}

/**
 * A short-lived link on the node that takes one file of exactly `size` bytes for `path` of one server,
 * replacing a file there only if `overwrite`: the caller has checked who may and that it fits; the node
 * checks the signature, expiry, purpose, server, path, size and overwrite choice, and names `actorId`
 * and `ip` when it reports the finished upload.
 */
export async function uploadLinkOf({ base, signer }: LinkBase, grant: UploadGrant): Promise<{ url: string; expires: number }> {
  const expires = Math.floor(Date.now() / 1000) + DOWNLOAD_LINK_SECONDS;
  const signature = await signer.sign({ purpose: 'file-upload', ...grant, expires });
  const query = {
    path: grant.path,
    size: grant.size,
    overwrite: String(grant.overwrite),
    actor: grant.actorId,
    ip: grant.ip,
    expires,
    signature,
  };
  return { url: `${base}${fillPath(agentEndpoints.signedFileUpload.path, { serverId: grant.serverId }, query)}`, expires };
}
