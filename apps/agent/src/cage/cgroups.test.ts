import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os, { availableParallelism } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectCgroups, groupName, limitsOf, readGroupUsage } from './cgroups.ts';

/**
 * The cgroup v2 path. This machine and CI mount only v1 controllers (cage.test.ts runs the real v1 limits),
 * and a v2 hierarchy cannot get a controller that a v1 one holds, so the v2 module is checked here against a
 * folder laid out as the kernel lays out /sys/fs/cgroup on a v2 node: what it writes and what it reads.
 */
function v2Root(controllers = 'cpuset cpu io memory hugetlb pids rdma misc'): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-cgroup2-'));
  writeFileSync(path.join(root, 'cgroup.controllers'), `${controllers}\n`);
  writeFileSync(path.join(root, 'cgroup.subtree_control'), '');
  return root;
}

describe('cgroup v2', () => {
  it("creates a server's group with the plan's limits, handing the controllers down level by level", async () => {
    const root = v2Root();
    const cgroups = await detectCgroups('/data/node-a', root);
    if ('missing' in cgroups) throw new Error(cgroups.missing);
    expect(cgroups.version).toBe(2);
    const group = await cgroups.create('srv1', limitsOf(512));
    const dir = path.join(root, groupName('/data/node-a'), 'srv1');
    expect(group.dirs).toEqual([dir]);
    expect(group.procsFiles).toEqual([path.join(dir, 'cgroup.procs')]);
    expect(group.oomFile).toBe(path.join(dir, 'memory.events'));
    expect(readFileSync(path.join(root, 'cgroup.subtree_control'), 'utf8')).toBe('+memory +cpu +pids');
    expect(readFileSync(path.join(root, groupName('/data/node-a'), 'cgroup.subtree_control'), 'utf8')).toBe('+memory +cpu +pids');
    // Every game of the node together: one default share per core against the node's own services.
    expect(readFileSync(path.join(root, groupName('/data/node-a'), 'cpu.weight'), 'utf8')).toBe(String(100 * availableParallelism()));
    expect(readFileSync(path.join(dir, 'memory.max'), 'utf8')).toBe(String(512 * 1024 * 1024));
    expect(readFileSync(path.join(dir, 'memory.swap.max'), 'utf8')).toBe('0');
    expect(readFileSync(path.join(dir, 'cpu.weight'), 'utf8')).toBe('51');
    expect(readFileSync(path.join(dir, 'pids.max'), 'utf8')).toBe('1024');
  });

  it('says which controller a node lacks instead of running games without limits', async () => {
    const root = v2Root('cpuset io hugetlb');
    expect(await detectCgroups('/data/node-a', root)).toEqual({
      missing: `the cgroup v2 controllers memory, cpu, pids are not available in ${root}`,
    });
  });

  it("reads a group's memory without its reclaimable file cache, and its CPU time", async () => {
    const root = v2Root();
    const cgroups = await detectCgroups('/data/node-b', root);
    if ('missing' in cgroups) throw new Error(cgroups.missing);
    const group = await cgroups.create('srv2', limitsOf(1024));
    const dir = group.usage.memoryDir;
    writeFileSync(path.join(dir, 'memory.current'), '314572800\n');
    writeFileSync(path.join(dir, 'memory.stat'), 'anon 200000000\nfile 114572800\nactive_file 10000000\ninactive_file 104857600\n');
    writeFileSync(path.join(dir, 'cpu.stat'), 'usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n');
    expect(await readGroupUsage(group.usage)).toEqual({ memoryBytes: 314572800 - 104857600, cpuNs: 2_500_000_000 });
  });

  it('reads nothing once the group is gone', async () => {
    const root = v2Root();
    mkdirSync(path.join(root, 'gone'));
    expect(await readGroupUsage({ version: 2, memoryDir: path.join(root, 'gone', 'srv'), cpuFile: null })).toBeNull();
  });
});
