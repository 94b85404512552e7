import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

/** A machine of its own on this one: a network namespace reached over a veth pair at `address`. */
export interface Machine {
  netns: string;
  /** The machine's address (inside the namespace). */
  address: string;
  /** This machine's address on the link to it: what the machine dials to reach the API. */
  hostAddress: string;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });

/**
 * `count` machines, each a network namespace with its own address on a /30 link to this host (made with
 * iproute2, as root). Names and addresses are drawn at random, so suites running side by side never meet.
 * Returns why not, instead, where namespaces cannot be made here.
 */
export function createMachines(count: number): { machines: Machine[]; remove: () => void } | { refusal: string } {
  const tag = randomBytes(2).toString('hex');
  const net = `10.${100 + Math.floor(Math.random() * 100)}.${Math.floor(Math.random() * 256)}`;
  const machines: Machine[] = [];
  const remove = () => {
    for (const m of machines) {
      try {
        // Deleting the namespace deletes its end of the link, and with it the host's end.
        ip('netns', 'delete', m.netns);
      } catch {
        // already gone
      }
    }
  };
  try {
    for (let i = 0; i < count; i++) {
      const machine = { netns: `sp${tag}${i}`, address: `${net}.${4 * i + 2}`, hostAddress: `${net}.${4 * i + 1}` };
      ip('netns', 'add', machine.netns);
      machines.push(machine);
      const [outside, inside] = [`vh${tag}${i}`, `vn${tag}${i}`];
      ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', inside);
      ip('link', 'set', inside, 'netns', machine.netns);
      ip('addr', 'add', `${machine.hostAddress}/30`, 'dev', outside);
      ip('link', 'set', outside, 'up');
      ip('netns', 'exec', machine.netns, 'ip', 'addr', 'add', `${machine.address}/30`, 'dev', inside);
      ip('netns', 'exec', machine.netns, 'ip', 'link', 'set', inside, 'up');
      ip('netns', 'exec', machine.netns, 'ip', 'link', 'set', 'lo', 'up');
      // Everything else through this host: a machine reaches any of this host's addresses (the first
      // machine's `hostAddress` serves as the one address of shared services, as a LAN's would).
      ip('netns', 'exec', machine.netns, 'ip', 'route', 'add', 'default', 'via', machine.hostAddress);
    }
    return { machines, remove };
  } catch (err) {
    remove();
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    return { refusal: `network namespaces cannot be made here (ip netns: ${stderr || (err as Error).message})` };
  }
}
