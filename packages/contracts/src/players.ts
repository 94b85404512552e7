/**
 * Who a player is, as Minecraft Java Edition works it out, for showing players without asking Mojang:
 * the UUID an offline-mode server gives a name, and the default skin the game shows for a UUID.
 * Pure functions, usable in browsers (no node:crypto): MD5 is implemented below from RFC 1321.
 */

/** The nine default characters of Minecraft Java Edition 1.19.3 and later, in the game's order. */
export const DEFAULT_SKIN_NAMES = ['alex', 'ari', 'efe', 'kai', 'makena', 'noor', 'steve', 'sunny', 'zuri'] as const;
export type DefaultSkinName = (typeof DEFAULT_SKIN_NAMES)[number];
/** `slim` arms are 3 pixels wide, `wide` ones 4; the head is the same. */
export type SkinModel = 'slim' | 'wide';
export interface DefaultSkin {
  name: DefaultSkinName;
  model: SkinModel;
}

const UUID_PATTERN = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** Whether a string is a UUID, with or without its dashes. */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/**
 * The UUID an offline-mode server gives a player name: Java's `UUID.nameUUIDFromBytes(("OfflinePlayer:" +
 * name).getBytes(UTF_8))`, a version 3 (MD5, name-based) UUID. The MD5 of the UTF-8 bytes, with the high
 * nibble of byte 6 set to 3 (the version) and the top two bits of byte 8 set to 10 (the IETF variant).
 * Lower case, with dashes, as the game writes it.
 */
export function offlineUuid(name: string): string {
  const bytes = md5(new TextEncoder().encode(`OfflinePlayer:${name}`));
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x30;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Java's `UUID.hashCode()`: `(int) (hilo >> 32) ^ (int) hilo` where `hilo = mostSigBits ^ leastSigBits`,
 * which is the XOR of the UUID's four 32-bit words, as a signed 32-bit integer.
 */
export function javaUuidHashCode(uuid: string): number {
  if (!isUuid(uuid)) throw new RangeError(`Not a UUID: ${uuid}`);
  const hex = uuid.replace(/-/g, '');
  let hash = 0;
  for (let i = 0; i < 32; i += 8) hash ^= Number.parseInt(hex.slice(i, i + 8), 16);
  return hash | 0;
}

/**
 * The default skin Minecraft Java Edition shows for a player without a skin of their own (1.19.3 and later,
 * `net.minecraft.client.resources.DefaultPlayerSkin.get(UUID)`): the game keeps 18 default skins — the nine
 * characters with slim arms, then the same nine with wide arms, each list in alphabetical order — and picks
 * `DEFAULT_SKINS[Math.floorMod(uuid.hashCode(), 18)]`. So index 0–8 is the slim `alex`…`zuri`, 9–17 the
 * wide ones. (Before 1.19.3 there were two: Alex (slim) when `(uuid.hashCode() & 1) == 1`, else Steve.)
 */
export function defaultSkinOf(uuid: string): DefaultSkin {
  const count = DEFAULT_SKIN_NAMES.length * 2;
  const index = ((javaUuidHashCode(uuid) % count) + count) % count;
  return {
    name: DEFAULT_SKIN_NAMES[index % DEFAULT_SKIN_NAMES.length] as DefaultSkinName,
    model: index < DEFAULT_SKIN_NAMES.length ? 'slim' : 'wide',
  };
}

// --- MD5 (RFC 1321), on bytes, little-endian words ---

// Per-round left-rotation amounts (RFC 1321 §3.4).
const SHIFTS = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];
// T[i] = floor(abs(sin(i + 1)) * 2^32), as the RFC defines the table.
const SINES = Array.from({ length: 64 }, (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 2 ** 32) >>> 0);

/** The MD5 digest of some bytes (16 bytes). MD5 is used here only because the game's UUIDs are made with it. */
export function md5(input: Uint8Array): Uint8Array {
  // Padding: a 1 bit, zeros up to 56 bytes mod 64, then the length in bits as a 64-bit little-endian number.
  const length = ((input.length + 8) >>> 6) * 64 + 64;
  const message = new Uint8Array(length);
  message.set(input);
  message[input.length] = 0x80;
  const view = new DataView(message.buffer);
  view.setUint32(length - 8, (input.length * 8) >>> 0, true);
  view.setUint32(length - 4, Math.floor(input.length / 2 ** 29) >>> 0, true);

  let a0 = 0x67452301;
  let b0 = 0xefcdab89;
  let c0 = 0x98badcfe;
  let d0 = 0x10325476;
  const words = new Uint32Array(16);
  for (let offset = 0; offset < length; offset += 64) {
    for (let i = 0; i < 16; i++) words[i] = view.getUint32(offset + i * 4, true);
    let a = a0;
    let b = b0;
    let c = c0;
    let d = d0;
    for (let i = 0; i < 64; i++) {
      const round = i >>> 4;
      let f: number;
      let g: number;
      if (round === 0) {
        f = (b & c) | (~b & d);
        g = i;
      } else if (round === 1) {
        f = (d & b) | (~d & c);
        g = (5 * i + 1) % 16;
      } else if (round === 2) {
        f = b ^ c ^ d;
        g = (3 * i + 5) % 16;
      } else {
        f = c ^ (b | ~d);
        g = (7 * i) % 16;
      }
      const sum = (a + f + (SINES[i] as number) + (words[g] as number)) >>> 0;
      const shift = SHIFTS[round * 4 + (i % 4)] as number;
      a = d;
      d = c;
      c = b;
      b = (b + ((sum << shift) | (sum >>> (32 - shift)))) >>> 0;
    }
    a0 = (a0 + a) >>> 0;
    b0 = (b0 + b) >>> 0;
    c0 = (c0 + c) >>> 0;
    d0 = (d0 + d) >>> 0;
  }
  const digest = new Uint8Array(16);
  const out = new DataView(digest.buffer);
  [a0, b0, c0, d0].forEach((word, i) => out.setUint32(i * 4, word, true));
  return digest;
}
