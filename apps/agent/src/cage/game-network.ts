/**
 * A network of its own for every game process (docs/security.md, "The game's network"). Each game runs in
 * a network namespace joined to the node by a veth pair on a /30 of GAME_SUBNET. The node's kernel does
 * the rest, with one nftables table (`inet spawnpoint`):
 * - the game's port on the node (GAME_BIND_HOST, or every IPv4 address) is forwarded to the game (DNAT),
 *   TCP and UDP, for players, the join proxy and the agent alike; nothing else of the node is;
 * - the game reaches the internet through the node (masquerade), but never the node itself (every local
 *   address, loopback included), another game, or a private, CGNAT, link-local (cloud metadata), multicast
 *   or reserved IPv4 address; it has no IPv6 beyond its own link. GAME_NETWORK_ALLOW names exceptions.
 * - DNS goes to GAME_DNS (by default the node's own resolvers that are not loopback ones), allowed by name.
 * A game cannot bind a port of the node: whatever it binds is inside its namespace.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { isIPv4 } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';

const run = promisify(execFile);

/** The host side of every game's veth pair starts with this (the firewall matches `spg*`). */
export const GAME_LINK_PREFIX = 'spg';
/** Where `ip netns` keeps named namespaces; the cage joins the game's one from here (nsenter). */
export const NETNS_DIR = '/run/netns';
const TABLE = 'inet spawnpoint';
const IP_FORWARD = '/proc/sys/net/ipv4/ip_forward';

/**
 * IPv4 a game never reaches (unless GAME_NETWORK_ALLOW names it): "this network", RFC 1918, CGNAT, loopback,
 * link-local (cloud metadata at 169.254.169.254), IETF protocol assignments, benchmarking, multicast and
 * reserved. The node's own addresses are refused by a rule of their own, whatever they are.
 */
export const DENIED_IPV4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '224.0.0.0/3',
];

/** One exception to the denied addresses: an IPv4 address or CIDR, with a TCP/UDP port or not. */
export interface AllowedDestination {
  cidr: string;
  port?: number;
}

export interface GameNetworkOptions {
  /** A /16 (or larger) of IPv4 the games' links are cut from; it must not be used on the node's network. */
  subnet: string;
  /** Address the game's port is forwarded from: 0.0.0.0 is every IPv4 address of the node. */
  bindHost: string;
  allow: AllowedDestination[];
  /** Resolvers written into the game's /etc/resolv.conf (and allowed on port 53). */
  dns: string[];
}

/**
 * What a running game's network is, kept in its run folder so a restarted agent can remove it. Read back
 * through this schema: its name, port and address go into `ip` and `nft` commands, so a file that does not
 * fit (damaged, or not ours) is treated as no lease rather than trusted.
 */
const networkLease = z.object({
  /** The namespace's name (`ip netns`) and the host side of the veth pair. */
  name: z.string().regex(new RegExp(`^${GAME_LINK_PREFIX}\\d{1,5}$`)),
  port: z.number().int().min(1).max(65_535),
  gameAddress: z.string().refine((address) => isIPv4(address)),
  /** The resolv.conf the cage shows the game. */
  resolvConf: z.string().max(4096),
});
export type NetworkLease = z.infer<typeof networkLease>;

/** The lease kept in `text`, or null when it is not one. */
function leaseOf(text: string): NetworkLease | null {
  try {
    const parsed = networkLease.safeParse(JSON.parse(text) as unknown);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export interface GameNetwork {
  readonly summary: string;
  /** Makes the game's namespace and forwards its port to it. Any earlier lease of this run folder goes first. */
  attach(port: number, runDir: string): Promise<NetworkLease>;
  /** Removes what `attach` made for this run folder (nothing when there is nothing). */
  release(runDir: string): Promise<void>;
}

const leaseFile = (runDir: string) => path.join(runDir, 'network.json');

function ipv4ToInt(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

function intToIpv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

/** The first address and size of an IPv4 CIDR (`10.189.0.0/16`). */
export function parseCidr(cidr: string): { base: number; size: number } | null {
  const [ip, bitsText] = cidr.split('/');
  const bits = Number(bitsText ?? '32');
  if (!ip || !isIPv4(ip) || !Number.isInteger(bits) || bits < 0 || bits > 32) return null;
  const size = 2 ** (32 - bits);
  return { base: ipv4ToInt(ip) - (ipv4ToInt(ip) % size), size };
}

/** GAME_NETWORK_ALLOW: `203.0.113.5:3306,198.51.100.0/24` (an address or CIDR, and a port or not). */
export function parseAllowList(text: string): AllowedDestination[] | string {
  const entries: AllowedDestination[] = [];
  for (const raw of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [cidr, portText] = raw.split(':');
    const port = portText === undefined ? undefined : Number(portText);
    if (!cidr || !parseCidr(cidr) || (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)))
      return `"${raw}" is not an IPv4 address or CIDR with an optional port (203.0.113.5:3306, 198.51.100.0/24)`;
    entries.push(port === undefined ? { cidr } : { cidr, port });
  }
  return entries;
}

/** The node's resolvers a game may use: those of /etc/resolv.conf that are not on loopback (the game's loopback is its own). */
export async function nodeResolvers(): Promise<string[]> {
  const text = await readFile('/etc/resolv.conf', 'utf8').catch(() => '');
  return text
    .split('\n')
    .map((line) => /^\s*nameserver\s+(\S+)/.exec(line)?.[1])
    .filter((ip): ip is string => ip !== undefined && isIPv4(ip) && !ip.startsWith('127.'));
}

/**
 * New connections one game may have tracked at once (outgoing; its players' connections are not counted):
 * a game opening flows as fast as it can would otherwise fill the node's connection-tracking table, which
 * every game and the node share. A Minecraft server needs a handful; its plugins a few hundred at most.
 */
export const GAME_FLOWS_MAX = 4096;
/** Marks the rule that keeps forwarding to the games only, on a node that did not forward before the agent. */
const GAMES_ONLY_MARK = 'spawnpoint: the node forwards for games only';

/** The whole table, applied in one transaction; running games' forwarded ports (the maps' elements) are kept. */
function ruleset(options: GameNetworkOptions, gamesOnly: boolean): string {
  const links = `iifname "${GAME_LINK_PREFIX}*"`;
  const toLinks = `oifname "${GAME_LINK_PREFIX}*"`;
  const from = options.bindHost === '0.0.0.0' ? 'fib daddr type local' : `ip daddr ${options.bindHost}`;
  const allowed = options.allow.flatMap((a) =>
    a.port === undefined
      ? [`${links} ip daddr ${a.cidr} accept`]
      : [`${links} ip daddr ${a.cidr} tcp dport ${a.port} accept`, `${links} ip daddr ${a.cidr} udp dport ${a.port} accept`],
  );
  const dns = options.dns.flatMap((ip) => [`${links} ip daddr ${ip} udp dport 53 accept`, `${links} ip daddr ${ip} tcp dport 53 accept`]);
  const chains: [string, string, string[]][] = [
    [
      'prerouting',
      'type nat hook prerouting priority dstnat; policy accept;',
      [`${from} dnat ip to tcp dport map @game_tcp`, `${from} dnat ip to udp dport map @game_udp`],
    ],
    [
      'output_nat',
      'type nat hook output priority -100; policy accept;',
      [`${from} dnat ip to tcp dport map @game_tcp`, `${from} dnat ip to udp dport map @game_udp`],
    ],
    // The node's own connections to a game come from loopback; the game answers the link's address.
    [
      'postrouting',
      'type nat hook postrouting priority srcnat; policy accept;',
      [`${toLinks} ip saddr 127.0.0.0/8 masquerade`, `${links} oifname != "${GAME_LINK_PREFIX}*" masquerade`],
    ],
    // A game sends from its own address only (a reverse-path check on its link), should it ever get to
    // set another one.
    [
      'antispoof',
      'type filter hook prerouting priority raw; policy accept;',
      [`${links} meta nfproto ipv4 fib saddr . iif oif missing drop`],
    ],
    [
      'forward',
      'type filter hook forward priority filter; policy accept;',
      [
        // The agent turns forwarding on for the games; a node that forwarded nothing before still does not.
        ...(gamesOnly ? [`iifname != "${GAME_LINK_PREFIX}*" oifname != "${GAME_LINK_PREFIX}*" drop comment "${GAMES_ONLY_MARK}"`] : []),
        `${toLinks} ct state established,related accept`,
        // Only what was forwarded to a game's port reaches it, and never from another game.
        `${toLinks} ${links} drop`,
        `${toLinks} ct status dnat accept`,
        `${toLinks} drop`,
        `${links} ct state established,related accept`,
        `${links} ct state new add @flows { iifname ct count over ${GAME_FLOWS_MAX} } reject with icmpx type admin-prohibited`,
        ...dns,
        ...allowed,
        `${links} ip daddr @denied4 reject with icmpx type admin-prohibited`,
        `${links} meta nfproto ipv6 reject with icmpx type admin-prohibited`,
        `${links} accept`,
      ],
    ],
    // Nothing of the node answers a game (route_localnet is on for its link, so 127.0.0.1 must be refused here).
    [
      'input',
      'type filter hook input priority filter; policy accept;',
      [`${links} ct state established,related accept`, ...dns, `${links} reject with icmpx type admin-prohibited`],
    ],
  ];
  return [
    `table ${TABLE} {`,
    '  map game_tcp { type inet_service : ipv4_addr; }',
    '  map game_udp { type inet_service : ipv4_addr; }',
    '  set denied4 { type ipv4_addr; flags interval; }',
    '  set flows { type ifname; flags dynamic; size 65535; }',
    ...chains.map(([name, hook]) => `  chain ${name} { ${hook} }`),
    '}',
    `flush set ${TABLE} denied4`,
    `add element ${TABLE} denied4 { ${DENIED_IPV4.join(', ')} }`,
    ...chains.flatMap(([name, , rules]) => [`flush chain ${TABLE} ${name}`, ...rules.map((rule) => `add rule ${TABLE} ${name} ${rule}`)]),
    '',
  ].join('\n');
}

/** Runs `command` with `input` on its standard input; rejects with its error output when it fails. */
function runWithInput(command: string, args: string[], input: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const child = execFile(command, args, (err, _stdout, stderr) => (err ? reject(new Error(stderr.trim() || err.message)) : resolve()));
    child.stdin?.end(input);
  });
}

const nft = (script: string) => runWithInput('nft', ['-f', '-'], script);

async function ip(...args: string[]): Promise<void> {
  await run('ip', args);
}

/** Several `ip` commands in one process (`ip -batch`), stopping at the first that fails. */
const ipBatch = (options: string[], commands: string[]) => runWithInput('ip', [...options, '-batch', '-'], `${commands.join('\n')}\n`);

/** Removes what `attach` made for a run folder (nothing when there is nothing). */
async function releaseNetwork(runDir: string): Promise<void> {
  const lease = await readFile(leaseFile(runDir), 'utf8').then(
    (text) => leaseOf(text),
    () => null,
  );
  if (!lease) return;
  // Only this game's mapping: the port may be another game's by now.
  const mapped = await run('nft', ['get', 'element', ...TABLE.split(' '), 'game_tcp', `{ ${lease.port} }`]).then(
    // The exact address: 10.189.0.2 must not match another game's 10.189.0.22.
    ({ stdout }) => new RegExp(`:\\s*${lease.gameAddress.replaceAll('.', '\\.')}(?![\\d.])`).test(stdout),
    () => false,
  );
  if (mapped)
    await nft(`delete element ${TABLE} game_tcp { ${lease.port} }\ndelete element ${TABLE} game_udp { ${lease.port} }\n`).catch(
      () => undefined,
    );
  // The veth pair is deleted first, at once: with only its namespace deleted, the kernel frees the pair
  // later, and a restart that takes the same slot straight away would find the name still used.
  await ip('link', 'delete', lease.name).catch(() => undefined);
  await ip('netns', 'delete', lease.name).catch(() => undefined);
  await rm(leaseFile(runDir), { force: true });
}

/** Whether this node can give games a network of their own, and the table that does it (applied now). */
export async function prepareGameNetwork(options: GameNetworkOptions): Promise<GameNetwork | { problem: string }> {
  if (process.getuid?.() !== 0) return { problem: 'the agent does not run as root, so it cannot make network namespaces' };
  const subnet = parseCidr(options.subnet);
  if (!subnet || subnet.size < 4 * 16) return { problem: `GAME_SUBNET ${options.subnet} is not an IPv4 CIDR of at least 16 games (/26)` };
  if (options.bindHost !== '0.0.0.0' && !isIPv4(options.bindHost))
    return { problem: `GAME_BIND_HOST ${options.bindHost} is not an IPv4 address; games are forwarded IPv4 only` };
  try {
    await run('nft', ['--version']);
    await run('ip', ['-V']);
    await run('nsenter', ['--version']);
  } catch {
    return { problem: 'nft (Debian package nftables), ip (iproute2) and nsenter (util-linux) are needed' };
  }
  try {
    // Read before the agent turns it on (or, after a restart, from the rule it left).
    const forwarded = (await readFile(IP_FORWARD, 'utf8').catch(() => '0')).trim() === '1';
    const gamesOnly =
      !forwarded ||
      (await run('nft', ['list', 'chain', ...TABLE.split(' '), 'forward']).then(
        ({ stdout }) => stdout.includes(GAMES_ONLY_MARK),
        () => false,
      ));
    await nft(ruleset(options, gamesOnly));
    // Games reach the internet through the node.
    await writeFile(IP_FORWARD, '1');
  } catch (err) {
    return { problem: `the firewall could not be set up: ${err instanceof Error ? err.message : String(err)}` };
  }
  const slots = subnet.size / 4;
  const network: GameNetwork = {
    summary: `each game has a network of its own (${options.subnet}; its port forwarded, the node and private addresses refused)`,

    async attach(port, runDir) {
      await network.release(runDir);
      // A slot is taken by making its namespace, which fails when it exists: no two games (nor agents) share one.
      const start = createHash('sha256').update(runDir).digest().readUInt32BE(0) % slots;
      let slot = -1;
      for (let i = 0; i < slots && slot < 0; i++) {
        const candidate = (start + i) % slots;
        if (
          await ip('netns', 'add', `${GAME_LINK_PREFIX}${candidate}`).then(
            () => true,
            () => false,
          )
        )
          slot = candidate;
      }
      if (slot < 0) throw new Error(`No free game network is left in GAME_SUBNET ${options.subnet}.`);
      const name = `${GAME_LINK_PREFIX}${slot}`;
      const hostAddress = intToIpv4(subnet.base + slot * 4 + 1);
      const gameAddress = intToIpv4(subnet.base + slot * 4 + 2);
      const resolvConf = path.join(runDir, 'resolv.conf');
      const lease: NetworkLease = { name, port, gameAddress, resolvConf };
      await writeFile(leaseFile(runDir), JSON.stringify(lease));
      try {
        // One `ip` process per side, not one per step: each costs a start several milliseconds.
        await ipBatch(
          [],
          [`link add ${name} type veth peer name eth0 netns ${name}`, `addr add ${hostAddress}/30 dev ${name}`, `link set ${name} up`],
        );
        // The node's connections from 127.0.0.1 are forwarded to the game (the firewall refuses the reverse).
        await writeFile(`/proc/sys/net/ipv4/conf/${name}/route_localnet`, '1');
        await ipBatch(
          ['-n', name],
          ['link set lo up', `addr add ${gameAddress}/30 dev eth0`, 'link set eth0 up', `route add default via ${hostAddress}`],
        );
        await writeFile(resolvConf, options.dns.map((r) => `nameserver ${r}\n`).join('') || '# no resolver\n');
        const elements = (map: string) => `${map} { ${port} : ${gameAddress} }`;
        // A port left mapped by a game that died with its agent is taken over.
        await nft(`add element ${TABLE} ${elements('game_tcp')}\nadd element ${TABLE} ${elements('game_udp')}\n`).catch(() =>
          nft(
            `delete element ${TABLE} game_tcp { ${port} }\ndelete element ${TABLE} game_udp { ${port} }\nadd element ${TABLE} ${elements('game_tcp')}\nadd element ${TABLE} ${elements('game_udp')}\n`,
          ),
        );
      } catch (err) {
        await network.release(runDir);
        throw err;
      }
      return lease;
    },

    release: releaseNetwork,
  };
  return network;
}
