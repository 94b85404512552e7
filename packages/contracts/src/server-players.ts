import { z } from 'zod';
import { validationMessages } from './validation.ts';

/**
 * The Players page of a server: who is online, its operators, whitelist and bans, and the changes a user
 * can make. A running server gets each change as a console command; an offline one has its files
 * (`ops.json`, `whitelist.json`, `banned-players.json`, `white-list` in server.properties) edited.
 */

export const PLAYER_NAME_MAX = 16;
export const PLAYER_REASON_MAX = 100;

export const playerNameMessage = 'A player name is 1 to 16 letters, digits and underscores.';

/** A Minecraft Java Edition name (what may appear in a console command: no spaces, nothing else). */
export const playerName = z
  .string({ error: validationMessages.required('player name') })
  .trim()
  .min(1, validationMessages.required('player name'))
  .max(PLAYER_NAME_MAX, playerNameMessage)
  .regex(/^[A-Za-z0-9_]+$/, playerNameMessage);

/** Shown to the player kicked or banned; one line, so it stays one console command. */
export const playerReason = z
  .string()
  .trim()
  .max(PLAYER_REASON_MAX, validationMessages.max('reason', PLAYER_REASON_MAX))
  .regex(/^[^\p{Cc}]*$/u, 'The reason must be one line of text.')
  .optional();

export const playerActionRequest = z.discriminatedUnion('action', [
  z.object({ action: z.enum(['kick', 'ban']), name: playerName, reason: playerReason }),
  z.object({ action: z.enum(['op', 'deop', 'whitelist-add', 'whitelist-remove', 'pardon']), name: playerName }),
  z.object({ action: z.literal('whitelist'), enabled: z.boolean() }),
]);
export type PlayerActionRequest = z.infer<typeof playerActionRequest>;

export const listedPlayer = z.object({ name: z.string(), uuid: z.string() });
export const listedOperator = listedPlayer.extend({ level: z.number().int() });
export const listedBan = listedPlayer.extend({ reason: z.string(), created: z.string(), source: z.string(), expires: z.string() });
export type ListedPlayer = z.infer<typeof listedPlayer>;
export type ListedBan = z.infer<typeof listedBan>;

export const serverPlayersResult = z.object({
  /** Changes go to the running game through its console (true) or into the files (false). */
  running: z.boolean(),
  /** Names of the players online now (as the game last reported them). */
  online: z.array(z.string()),
  whitelistEnabled: z.boolean(),
  operators: z.array(listedOperator),
  whitelist: z.array(listedPlayer),
  bans: z.array(listedBan),
  /** Entries of the files that could not be used (skipped), in words. */
  problems: z.array(z.string()),
});
export type ServerPlayers = z.infer<typeof serverPlayersResult>;
