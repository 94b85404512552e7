/** What the game benchmarks share: waiting for a game to answer a status ping, and the median of runs. */
import minecraftProtocol from 'minecraft-protocol';

/** Resolves once the port answers a Minecraft status ping (a minute at most: a bench never hangs silently). */
export async function untilPingAnswers(port: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (Date.now() > deadline) throw new Error(`nothing answered a status ping on port ${port} within a minute`);
    const answered = await minecraftProtocol.ping({ host: '127.0.0.1', port, closeTimeout: 1000 }).then(
      () => true,
      () => false,
    );
    if (answered) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}
