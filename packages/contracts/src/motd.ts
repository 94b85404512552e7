/**
 * The schemas of a server's message of the day and icon (the Appearance page's requests, the launcher's
 * favicon). The codes themselves, their parsing and the status answer's component are in motd-text.ts.
 */
import { z } from 'zod';
import { FAVICON_MAX_CHARS, FAVICON_PATTERN, MOTD_RAW_MAX, parseMotd } from './motd-text.ts';

/** A MOTD the page may save: two lines, 59 visible characters each, only real codes. */
export const motdSchema = z.string().superRefine((value, ctx) => {
  for (const problem of parseMotd(value).problems) ctx.addIssue({ code: 'custom', message: problem });
});

/** A favicon data URL as the launcher accepts it (at most the icon cap once decoded). */
export const faviconSchema = z.string().max(FAVICON_MAX_CHARS).regex(FAVICON_PATTERN);

// ---------------------------------------------------------------------------------------------------
// Endpoints' shapes

/** `GET /v1/server/{id}/appearance`: the MOTD as saved (with `§`) and the icon, or null for the default one. */
export const appearanceResult = z.object({
  motd: z.string(),
  /** A `data:image/png;base64,…` URL of server-icon.png, or null when the server has none (or a broken one). */
  icon: z.string().nullable(),
  /**
   * The shop's icons, whether the server's owner has each (only those may be chosen), and whether it is the
   * server's icon now (`inUse`: the page says "In use" instead of offering it again).
   */
  shopIcons: z.array(z.object({ itemId: z.string(), name: z.string(), owned: z.boolean(), inUse: z.boolean().default(false) })).default([]),
});
export type AppearanceResult = z.infer<typeof appearanceResult>;

export const appearanceUpdateRequest = z.object({ motd: motdSchema });

/**
 * A MOTD as the public server list may show it: one the Appearance page would save (two lines, real
 * codes, no restricted word), else nothing. The tenant can write any bytes into server.properties with the
 * file manager or game code, and the list shows them to every visitor.
 */
export function publicMotd(raw: string): string {
  return raw.length <= MOTD_RAW_MAX && motdSchema.safeParse(raw).success ? raw : '';
}

/** A picture the owner uploads as the icon: scaled to 64×64 by the API when it is not already an icon. */
export const SERVER_ICON_UPLOAD_MAX_BYTES = 2 * 1024 * 1024;
export const appearanceIconRequest = z.object({
  image: z
    .string({ error: 'Choose a picture.' })
    .max(
      Math.ceil(SERVER_ICON_UPLOAD_MAX_BYTES / 3) * 4 + 4,
      `The picture may be at most ${SERVER_ICON_UPLOAD_MAX_BYTES / 1024 / 1024} MiB.`,
    )
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'The picture must be sent as base64.'),
});
