import { agentEndpoints, javaMajorFor, newestVersionFirst, softwareCatalogue, type SoftwareId } from '@spawnpoint/contracts';
import type { NodeRegistry } from '../nodes.ts';

/** A node's answer about its versions, waited for at most this long: the create page must not hang on one node. */
const ASK_MS = 5_000;

export interface SoftwareOffer {
  id: SoftwareId;
  name: string;
  /** Newest first: for Java software, the releases some connected node can install and has the Java for. */
  versions: string[];
  available: boolean;
  /** Every release a connected node lists, whether or not one has its Java (a create then says which Java). */
  published: string[];
  /** Snapshots and pre-releases ahead of the newest release, offered only when the owner asks (same filter). */
  previews: string[];
  /** Of `versions` and `previews`, those whose Java no connected node has yet (downloaded at the first start). */
  javaDownloads: string[];
}

/**
 * What the create page offers, and what a create is checked against: the built-in runtime's versions as
 * it speaks them, and each Java software's releases as the connected nodes read them from the vendors (or
 * hold in their jar cache) — only those a node has a Java for. A software no connected node can install
 * now is offered with no version (`available` false), not with versions that would fail at the first start.
 */
export async function softwareOffer(nodes: NodeRegistry): Promise<SoftwareOffer[]> {
  const answers = await Promise.all(
    nodes.connectedIds().map(async (nodeId) => {
      const javas = nodes.javaMajorsOf(nodeId) ?? [];
      const lists = await nodes.call(nodeId, agentEndpoints.softwareVersions, {}, ASK_MS).catch(() => null);
      return { javas, installed: nodes.javaInstalledOf(nodeId), lists };
    }),
  );
  const installed = answers.flatMap((a) => a.installed);
  return softwareCatalogue.map((s) => {
    if (s.runtime !== 'java-jar')
      return {
        id: s.id,
        name: s.name,
        versions: [...s.versions],
        available: true,
        published: [...s.versions],
        previews: [],
        javaDownloads: [],
      };
    const id = s.id as Exclude<SoftwareId, 'flying-squid'>;
    const runnable = (v: string, javas: number[]) => javas.some((j) => j >= javaMajorFor(v));
    const versions = newestVersionFirst(answers.flatMap(({ javas, lists }) => (lists?.[id] ?? []).filter((v) => runnable(v, javas))));
    const published = newestVersionFirst(answers.flatMap(({ lists }) => lists?.[id] ?? []));
    // In the vendors' order (snapshot names do not sort as numbers), each once.
    const previews = [...new Set(answers.flatMap(({ javas, lists }) => (lists?.previews[id] ?? []).filter((v) => runnable(v, javas))))];
    const javaDownloads = [...versions, ...previews].filter((v) => !runnable(v, installed));
    return { id: s.id, name: s.name, versions, available: versions.length > 0, published, previews, javaDownloads };
  });
}
