import { z } from 'zod';
import { motdSchema } from './motd.ts';
import { plans } from './plans.ts';
import { isMissing, validationMessages } from './validation.ts';

/** Files, server.properties and backups (docs/guide.md, Files, properties and backups). */
export const filePath = z.string().max(4096, 'The path is too long.');

/**
 * Text-direction controls (and the invisible direction marks): in a name they make `evil\u202Etxt.exe` read
 * as `evilexe.txt`. New names may not hold them; names already in a folder (a plugin may write any) are
 * shown with each one spelled out.
 */
export const DIRECTION_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
export const directionControlsMessage = 'Names may not contain text-direction control characters (they make a name look like another).';

/**
 * Characters that take no space (zero-width space, word joiner and its kin, byte-order mark, soft hyphen,
 * Mongolian vowel separator): `config\u200B.yml` would show exactly as `config.yml`. The joiners U+200C/D
 * are left alone, as Persian, Indic scripts and emoji sequences need them.
 */
const INVISIBLE = /[\u00ad\u180e\u200b\u2060-\u2064\ufeff]/;
const spelledOut = new RegExp(`${DIRECTION_CONTROLS.source}|${INVISIBLE.source}`, 'g');

/** A name with its direction controls taken out (what Rename offers to start from). */
export const withoutDirectionControls = (name: string) => name.replace(new RegExp(DIRECTION_CONTROLS.source, 'g'), '');
/**
 * A file name as the file manager shows it: direction controls and invisible characters as `⟨U+202E⟩`,
 * so every name reads as it is and two names never look the same.
 */
export const visibleFileName = (name: string) =>
  name.replace(spelledOut, (c) => `⟨U+${c.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')}⟩`);
export const fileEntry = z.object({
  name: z.string(),
  type: z.enum(['file', 'directory', 'symlink', 'other']),
  size: z.number(),
  modifiedAt: z.string(),
  /** Permission bits (0o644 is 420). */
  mode: z.number().int().min(0).max(0o777),
});
export type FileEntry = z.infer<typeof fileEntry>;
/**
 * Entries a folder listing holds at most. A game can make millions of names in a folder (hard links cost it
 * nothing); the node reads this many and stops, so neither it nor the browser holds them all.
 */
export const FILE_LIST_MAX = 5000;
export const fileListResult = z.array(fileEntry).max(FILE_LIST_MAX);
export const fileSearchResult = z.array(z.object({ path: z.string(), type: fileEntry.shape.type, size: z.number() }));

export const pathQuery = z.object({ path: filePath.default('/') });
export const searchQuery = z.object({ q: z.string().trim().min(1, 'Type part of a file name.').max(100) });
/**
 * A path the user named in a form (a new file, folder or name): missing or blank is answered with the
 * form rule's words for that field, not the schema library's.
 */
const namedPath = (field: string) =>
  z
    .string({ error: validationMessages.required(field) })
    .max(4096, 'The path is too long.')
    .refine((value) => !isMissing(value) && !/\/\s*$/.test(value), validationMessages.required(field));
/** A path that names something to be made or written: no direction controls (see `DIRECTION_CONTROLS`). */
// Only the name being made (the last part): a file inside a folder a plugin named that way can still be saved.
const plain = <T extends z.ZodType<string>>(schema: T) =>
  schema.refine((value) => !DIRECTION_CONTROLS.test(value.split('/').at(-1) ?? ''), directionControlsMessage);
export const writeFileRequest = z.object({
  path: plain(namedPath('file name')),
  content: z.string(),
  /** False for "New file": an existing file of that name is refused (INVALID_STATE), never emptied. */
  overwrite: z.boolean().default(true),
});
export const mkdirRequest = z.object({
  path: plain(namedPath('folder name')),
  /**
   * `mkdir -p`: missing parents are made too and a folder that already exists is no failure (uploads of a
   * folder tree send every folder they need). Without it, an existing name is INVALID_STATE.
   */
  parents: z.boolean().default(false),
});
/** How many folders the call made (0 when, with `parents`, everything already existed). */
export const mkdirResult = z.object({ created: z.number().int().min(0) });
export const renameRequest = z.object({ from: namedPath('path'), to: plain(namedPath('new name')) });
export const deleteFilesRequest = z.object({ paths: z.array(filePath.min(1)).min(1).max(500) });
/**
 * Permission bits a file's owner may set. The owner keeps read and write (first digit 6 or 7): the game and
 * the file manager act as the owner, so 000 or 444 would leave a file the server can no longer use or change.
 */
export const fileMode = z
  .number()
  .int()
  .min(0)
  .max(0o777, 'Use three digits from 0 to 7, such as 644.')
  .refine((mode) => (mode & 0o600) === 0o600, {
    message: 'The first digit must be 6 or 7: the owner (the server itself) needs to read and write it.',
  });
/** The same rule as typed in the files page's dialog: three octal digits. */
export const fileModeText = z
  .string()
  .trim()
  .regex(/^[0-7]{3}$/, 'Use three digits from 0 to 7, such as 644.')
  .transform((text) => parseInt(text, 8))
  .pipe(fileMode);
export const chmodRequest = z.object({ path: filePath.min(1), mode: fileMode });
export const archiveRequest = z.object({ paths: z.array(filePath.min(1)).min(1).max(500), destination: plain(filePath.min(1)) });
/**
 * `destination` left out: into a new folder beside the archive, named after it (`world.zip` → `world/`, or
 * `world (2)/` when that name is taken), so nothing the owner has is overwritten without asking.
 */
export const extractRequest = z.object({ path: filePath.min(1), destination: plain(filePath).optional() });
/** What an extraction made; links and special files in the archive are never created (`skipped`). */
export const extractResult = z.object({
  /** The folder it was unpacked into. */
  destination: z.string(),
  files: z.number().int().min(0),
  folders: z.number().int().min(0),
  bytes: z.number().int().min(0),
  skipped: z.number().int().min(0),
});

/** Text files up to this size open in the editor; larger ones are downloaded instead. */
export const EDITABLE_MAX_BYTES = 2 * 1024 * 1024;

/** The most player slots any plan gives. */
export const PLAYER_SLOTS_MAX = Math.max(...plans.map((plan) => plan.playerSlots));

/**
 * The server.properties keys the form offers. Java servers honour every one; the built-in runtime honours
 * all but `javaOnlyProperties` (its launcher adds pvp and the whitelist). online-mode is not offered:
 * players are verified by Mojang's session servers, which the nodes cannot reach yet.
 */
export const serverProperties = z.object({
  /** Two lines of 59 visible characters with `&`/`§` codes (the Appearance page edits the same value). */
  motd: motdSchema,
  // The plan's slots are the real bound, checked by the API against the server's plan.
  'max-players': z
    .number()
    .int()
    .min(1, 'At least one player')
    .max(PLAYER_SLOTS_MAX, `No plan has more than ${PLAYER_SLOTS_MAX} player slots`),
  gamemode: z.enum(['survival', 'creative', 'adventure', 'spectator']),
  difficulty: z.enum(['peaceful', 'easy', 'normal', 'hard']),
  'view-distance': z.number().int().min(2).max(32),
  'level-seed': z
    .string()
    .max(32)
    .regex(/^-?\d*$/, 'The seed must be a whole number (or empty for a random one)'),
  'level-type': z.enum(['default', 'flat']),
  pvp: z.boolean(),
  'white-list': z.boolean(),
  'spawn-protection': z
    .number()
    .int()
    .min(0, 'The spawn protection is 0 (off) to 64 blocks')
    .max(64, 'The spawn protection is 0 (off) to 64 blocks')
    .optional(),
  'allow-nether': z.boolean().optional(),
});
export type ServerProperties = z.infer<typeof serverProperties>;

/**
 * server.properties as read (`GET` and the answer of `PUT …/properties`). The tenant can write any bytes
 * there (file manager, game code), so a MOTD or seed the form would refuse is shown as it is — the form then
 * says what is wrong with it if it is edited — and never makes the page fail. `max-players` is what the
 * server runs with: the file's value, never more than the plan's slots.
 */
export const serverPropertiesView = serverProperties.extend({ motd: z.string(), 'level-seed': z.string() });
export type ServerPropertiesView = z.infer<typeof serverPropertiesView>;

/**
 * Keys only Java servers honour: flying-squid has no fixed world spawn (each player spawns at a random
 * place near 0,0) and no portal to the nether, so they are read and written only for Java servers.
 */
export const javaOnlyProperties = ['spawn-protection', 'allow-nether'] as const satisfies readonly (keyof ServerProperties)[];

export const backupSummary = z.object({
  backupId: z.string(),
  createdAt: z.string(),
  size: z.number(),
  sha256: z.string(),
  locked: z.boolean(),
});
export const backupListResult = z.array(backupSummary);
/** What a restore did: `started` is true only when the server, running before, is online again. */
/** A restore is a job (it can outlast any HTTP wait): the answer names it at once; `server:restore` follows it. */
export const backupRestoreResult = z.object({ restoring: z.string() });
/** Where a restore is: fetching the folder from storage, stopping the server, restoring, starting it again. */
export const restoreSteps = ['fetching', 'stopping', 'restoring', 'starting'] as const;
/** `server:restore`: a restore's step while it runs, and how it ended (`started`: the server is running again). */
export const backupRestoreEvent = z.object({
  serverId: z.string(),
  backupId: z.string(),
  phase: z.enum(['running', 'complete', 'failed']),
  step: z.enum(restoreSteps).optional(),
  started: z.boolean().optional(),
  message: z.string().optional(),
});
export type BackupRestoreEvent = z.infer<typeof backupRestoreEvent>;
/**
 * GET …/backups: the complete backups, the plan's count, whether a job (backup or restore) runs, and the
 * backup being made with its last reported progress, so a page opened midway shows it.
 */
export const backupListPage = z.object({
  backups: backupListResult,
  limit: z.number(),
  running: z.boolean(),
  pending: z.object({ backupId: z.string(), percent: z.number().int().min(0).max(100) }).nullable(),
});
export const backupIdParams = z.object({
  serverId: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/),
  backupId: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/),
});
export const backupLockRequest = z.object({ locked: z.boolean() });
export const backupCreateResult = z.object({ backupId: z.string() });
/** Bytes the server's folder uses and the plan's quota. */
export const diskUsageResult = z.object({ used: z.number(), quota: z.number() });
/** A text file for the editor. */
export const fileContentResult = z.object({ path: z.string(), content: z.string() });
/** The upload's target and the size the browser declares, so a file that cannot fit is refused at once. */
export const uploadQuery = z.object({
  path: plain(z.string().min(1).max(4096)),
  size: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  /** `false`: refused with INVALID_STATE when the name exists (the user did not choose Replace). */
  overwrite: z.enum(['true', 'false']).default('true'),
});
/** Asks for a link the browser sends one file to, straight to the server's node (`fileUploadLink`). */
export const uploadLinkRequest = z.object({
  path: plain(z.string().min(1).max(4096)),
  /** The file's exact size: the node takes exactly this many bytes, and a file that cannot fit is refused now. */
  size: z
    .number()
    .int()
    .min(0)
    .max(2 ** 50),
  /** `false`: refused with INVALID_STATE when the name exists (the user did not choose Replace), now and on the node. */
  overwrite: z.boolean().default(true),
});
/**
 * `url` takes a `PUT` of the file's bytes (Content-Type application/octet-stream) until `expires` (Unix
 * seconds); within that minute it may be used again, for the same path and size only.
 */
export const uploadLinkResult = z.object({ url: z.string(), expires: z.number().int() });
export const backupProgressEvent = z.object({
  serverId: z.string(),
  backupId: z.string(),
  phase: z.enum(['running', 'complete', 'failed']),
  percent: z.number(),
  message: z.string().optional(),
});

export const FREE_BACKUP_LIMIT = 3;
export const FREE_DISK_MB = 2048;
