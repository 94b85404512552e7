/**
 * What a player whose Minecraft is another version than the server's reads, from the join proxy and from
 * the built-in runtime alike (the game's own words name a protocol number nobody knows). No zod here: the
 * built-in runtime's launcher bundles it.
 */
export const wrongVersionMessage = (version: string) =>
  `This server runs Minecraft ${version} — choose ${version} in your launcher's installations, or ask its owner to change the version.`;
