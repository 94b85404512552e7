import { createRequire } from 'node:module';
import { motdColours, parseMotd } from '@spawnpoint/contracts';
import type { PluginPlayer, PluginServer } from './squid.ts';

const require = createRequire(import.meta.url);
interface Nbt {
  /** A compound, or (given an array) the compounds of a list. */
  comp(value: Record<string, unknown> | Record<string, unknown>[]): unknown;
  string(value: string): unknown;
  byte(value: number): unknown;
  list(value: unknown): unknown;
}
let nbt: Nbt | null = null;

/**
 * A chat line with `&`/`§` colour and format codes, shown to one player. From 1.20.3 the game takes chat as
 * NBT, and flying-squid sends only plain text there (its codes would show as `&a`), so the component is
 * built here with the same parser as the MOTD; older versions get flying-squid's own handling of `&`.
 */
export function tell(serv: PluginServer, player: PluginPlayer, text: string): void {
  if (!serv.supportFeature('chatPacketsUseNbtComponents')) {
    player.chat(text);
    return;
  }
  nbt ??= require('prismarine-nbt') as Nbt;
  const spans = parseMotd(text).lines.flat();
  const parts = spans.map((span) => {
    const named = Object.values(motdColours).find((c) => c.hex === span.colour);
    return {
      text: nbt!.string(span.text),
      ...(span.colour === null ? {} : { color: nbt!.string(named?.name ?? span.colour.toLowerCase()) }),
      bold: nbt!.byte(span.bold ? 1 : 0),
      italic: nbt!.byte(span.italic ? 1 : 0),
      underlined: nbt!.byte(span.underlined ? 1 : 0),
      strikethrough: nbt!.byte(span.strikethrough ? 1 : 0),
      obfuscated: nbt!.byte(span.obfuscated ? 1 : 0),
    };
  });
  const content = nbt.comp({ text: nbt.string(''), ...(parts.length ? { extra: nbt.list(nbt.comp(parts)) } : {}) });
  player._client.write('system_chat', { content, isActionBar: false });
}

/** One chat line to everybody in the game. */
export function tellAll(serv: PluginServer, text: string, except?: PluginPlayer): void {
  for (const player of serv.players) if (player !== except) tell(serv, player, text);
}

/** A message for players: `{player}` becomes the name (player names hold no & codes). */
export const fill = (template: string, names: Record<string, string>) =>
  template.replace(/\{(\w+)\}/g, (whole, key: string) => names[key] ?? whole);
