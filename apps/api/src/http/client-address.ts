import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import proxyAddr from '@fastify/proxy-addr';

/**
 * Whose X-Forwarded-For is believed (TRUST_PROXY): only that of the load balancers listed, by address or CIDR.
 * The header is read from the right, from the direct peer on, and the first address that is not a trusted
 * proxy is the client: a client can write what it likes on the left of the header, never its own address.
 * One rule, one compiled test, for HTTP (Fastify's `request.ip`) and for sockets (`clientAddress`).
 */

/** Is this address (at this hop, 0 being the direct peer) a trusted proxy: Fastify's `trustProxy` function. */
export type ProxyTrust = (address: string, hop: number) => boolean;

const TRUST_NOBODY = new Set(['', 'false', '0', 'no']);
const TRUST_EVERYONE = new Set(['true', '1', 'yes', '*']);

const trustEveryone = (value: string) =>
  `"${value}" would believe X-Forwarded-For from any client, which could then pick its own address and escape every per-address limit. List the load balancers' addresses instead: comma-separated IP addresses or CIDRs (e.g. 10.0.0.5,10.1.0.0/16,::1), or false when there is none.`;

/** Reads TRUST_PROXY into the list of trusted proxies ([] for none); throws an Error saying why it cannot. */
export function parseTrustedProxies(value: string | undefined): string[] {
  const text = (value ?? '').trim();
  if (TRUST_NOBODY.has(text.toLowerCase())) return [];
  if (TRUST_EVERYONE.has(text.toLowerCase())) throw new Error(trustEveryone(text));
  const entries = text.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address = '', range, ...rest] = entry.split('/');
    if (range === '0') throw new Error(trustEveryone(entry));
    // An address (not proxy-addr's named ranges such as `uniquelocal`) and a prefix proxy-addr accepts.
    let valid = isIP(address) !== 0 && rest.length === 0;
    try {
      if (valid) proxyAddr.compile(entry);
    } catch {
      valid = false;
    }
    if (!valid)
      throw new Error(
        `"${entry}" is not an IP address or CIDR. List the load balancers' addresses: comma-separated IP addresses or CIDRs (e.g. 10.0.0.5,10.1.0.0/16,::1).`,
      );
  }
  return entries;
}

const compiled = new WeakMap<readonly string[], ProxyTrust>();

/**
 * Fastify's `trustProxy` for the list: `false` with none (`request.ip` is the peer's, X-Forwarded-* ignored),
 * otherwise proxy-addr's test of the list, compiled once per list so HTTP and sockets share it.
 */
export function proxyTrust(proxies: readonly string[]): ProxyTrust | false {
  if (proxies.length === 0) return false;
  let trust = compiled.get(proxies);
  if (!trust) {
    trust = proxyAddr.compile([...proxies]);
    compiled.set(proxies, trust);
  }
  return trust;
}

/** The client's address of a socket's handshake, found as Fastify finds `request.ip` (proxy-addr, the same test). */
export function clientAddress(handshake: { address: string; headers: IncomingHttpHeaders }, proxies: readonly string[]): string {
  const trust = proxyTrust(proxies);
  if (!trust) return handshake.address;
  const request = { headers: handshake.headers, socket: { remoteAddress: handshake.address } };
  return proxyAddr(request as unknown as IncomingMessage, trust);
}
