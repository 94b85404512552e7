import { agentEndpoints, faviconOf, SERVER_ICON_FILE, SERVER_ICON_MAX_BYTES, serverIconProblem } from '@spawnpoint/contracts';
import { ApiError } from '../http/errors.ts';
import type { NodeRegistry } from '../nodes.ts';

/**
 * A server's icon (`server-icon.png` at the top of its folder, read through the node's sandbox) as a data
 * URL, or null when there is none or what is there is no valid icon: the file is the tenant's, so it is
 * checked (size first, then PNG and 64×64) before anyone is shown it.
 */
export async function readServerIcon(nodes: NodeRegistry, server: { id: string; nodeId: string }): Promise<string | null> {
  let download;
  try {
    download = await nodes.download(server.nodeId, agentEndpoints.fileDownload, {
      params: { serverId: server.id },
      query: { path: `/${SERVER_ICON_FILE}` },
    });
  } catch (err) {
    if (err instanceof ApiError && (err.code === 'NOT_FOUND' || err.code === 'INVALID_INPUT')) return null;
    throw err;
  }
  const length = Number(download.headers['content-length'] ?? 'NaN');
  if (!(length <= SERVER_ICON_MAX_BYTES)) {
    download.body.destroy();
    return null;
  }
  const bytes = await nodes.collect(server.nodeId, download.body);
  return serverIconProblem(bytes) === null ? faviconOf(bytes) : null;
}
