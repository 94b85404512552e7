import { createReadStream } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for the software vendors' metadata, in each vendor's own shape and path, on one local port
 * (the paths do not collide): Paper's Fill API v3 project, Purpur's API v2 project, Mojang's version
 * manifest v2 and Fabric's meta game versions. Point every SOFTWARE_MIRROR_* at `url`. `versions` (newest
 * first) may change while it runs, as a vendor publishes a release; a snapshot and a pre-release are always
 * listed too, as vendors list them, and must never be offered. Server jars are not served (404). Adoptium's
 * API v3 lists a Java runtime only for the majors put in `java` (java-fixture.ts packs a real one), whose
 * archive it serves under `/adoptium/`; `javaChecksum` overrides the checksum it publishes (a damaged file).
 */
export interface VendorStub {
  url: string;
  versions: string[];
  /** How many metadata requests it answered. */
  requests: number;
  /** While set, every answer is this status (a vendor that is down). */
  failWith: number | null;
  java: Record<number, JavaFixture>;
  javaChecksum: string | null;
  close(): Promise<void>;
}

import type { JavaFixture } from './java-fixture.ts';

/** Adoptium's `GET /v3/assets/latest/{major}/hotspot` answer, in its shape (the fields the node reads, and a few more). */
function adoptiumAssets(stub: VendorStub, major: number): unknown[] {
  const fixture = stub.java[major];
  if (!fixture) return [];
  const name = `OpenJDK${major}U-jre_x64_linux_hotspot_${fixture.releaseName}.tar.gz`;
  return [
    {
      binary: {
        architecture: process.arch === 'arm64' ? 'aarch64' : 'x64',
        image_type: 'jre',
        jvm_impl: 'hotspot',
        os: 'linux',
        package: { checksum: stub.javaChecksum ?? fixture.sha256, link: `${stub.url}/adoptium/${major}/${name}`, name, size: fixture.size },
      },
      release_name: fixture.releaseName,
      vendor: 'eclipse',
      version: { major },
    },
  ];
}

const family = (v: string) => v.split('.').slice(0, 2).join('.');

function answer(path: string, versions: string[], base: string): unknown {
  switch (path) {
    case '/v3/projects/paper': {
      const groups: Record<string, string[]> = {};
      // A pre-release of the next version, listed first in its family as Paper lists newest first.
      const next = (versions[0] ?? '1.0').replace(/\d+$/, (n) => String(Number(n) + 1));
      for (const v of [`${next}-pre1`, ...versions]) (groups[family(v)] ??= []).push(v);
      return { project: { id: 'paper', name: 'Paper' }, versions: groups };
    }
    case '/v2/purpur':
      return { project: 'purpur', metadata: { current: versions[0] }, versions: [...versions].reverse() };
    case '/mc/game/version_manifest_v2.json':
      return {
        latest: { release: versions[0], snapshot: '99w01a' },
        versions: [
          { id: '99w01a', type: 'snapshot', url: `${base}/v1/packages/99w01a.json`, sha1: 'a'.repeat(40) },
          ...versions.map((id) => ({ id, type: 'release', url: `${base}/v1/packages/${id}.json`, sha1: 'a'.repeat(40) })),
        ],
      };
    case '/v2/versions/game':
      return [{ version: '99w01a', stable: false }, ...versions.map((version) => ({ version, stable: true }))];
    default:
      return undefined;
  }
}

export async function startVendorStub(versions: string[] = ['1.21.4', '1.20.4'], port = 0): Promise<VendorStub> {
  const stub: VendorStub = {
    url: '',
    versions,
    requests: 0,
    failWith: null,
    java: {},
    javaChecksum: null,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((request, response) => {
    const pathname = new URL(request.url ?? '/', 'http://stub').pathname;
    const assets = /^\/v3\/assets\/latest\/(\d+)\/hotspot$/.exec(pathname);
    const archive = /^\/adoptium\/(\d+)\//.exec(pathname);
    const fixture = archive ? stub.java[Number(archive[1])] : undefined;
    if (fixture) {
      response.writeHead(200, { 'content-type': 'application/gzip', 'content-length': fixture.size });
      return void createReadStream(fixture.archive).pipe(response);
    }
    const body = assets ? adoptiumAssets(stub, Number(assets[1])) : answer(pathname, stub.versions, stub.url);
    if (body === undefined) return void response.writeHead(404).end();
    stub.requests += 1;
    if (stub.failWith !== null) return void response.writeHead(stub.failWith).end();
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  // A stub shared by a test file's agents must not keep the test process alive.
  server.unref();
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return stub;
}

/** The agent's environment for a node that reads every vendor's metadata from `stub`. */
export const mirrorsOf = (stub: { url: string }) => ({
  SOFTWARE_MIRROR_PAPER: stub.url,
  SOFTWARE_MIRROR_PURPUR: stub.url,
  SOFTWARE_MIRROR_MOJANG: stub.url,
  SOFTWARE_MIRROR_FABRIC: stub.url,
  SOFTWARE_MIRROR_ADOPTIUM: stub.url,
});
