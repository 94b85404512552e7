import { SERVER_ICON_SIZE, serverIconProblem } from '@spawnpoint/contracts';
import sharp, { type Metadata } from 'sharp';
import { ApiError } from '../http/errors.ts';

/** Pictures wider or taller than this are refused before they are decoded (a small file can hold a huge image). */
const MAX_SIDE = 4096;
const formats = new Set(['png', 'jpeg', 'gif', 'webp']);

const refuse = (message: string) => new ApiError('INVALID_INPUT', { image: message }, message);

/**
 * The server icon made from an owner's picture: a 64×64 PNG is kept byte for byte; any other PNG, JPEG,
 * GIF (its first frame) or WebP is cut to a centred square, scaled to 64×64 and encoded again as PNG with
 * sharp (libvips). The bytes are the owner's, so the format is read from the file itself, only those four
 * formats are decoded (never SVG, whose renderer reads more than pixels), and the pixel count is capped
 * before decoding.
 */
export async function serverIconFrom(bytes: Buffer): Promise<Buffer> {
  if (serverIconProblem(bytes) === null) return bytes;
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: MAX_SIDE * MAX_SIDE }).metadata();
  } catch {
    throw refuse('This is not a picture: choose a PNG, JPEG, GIF or WebP image.');
  }
  if (!meta.format || !formats.has(meta.format)) throw refuse('This is not a picture: choose a PNG, JPEG, GIF or WebP image.');
  if (!meta.width || !meta.height || meta.width > MAX_SIDE || meta.height > MAX_SIDE)
    throw refuse(`The picture may be at most ${MAX_SIDE}×${MAX_SIDE} pixels.`);
  try {
    return await sharp(bytes, { limitInputPixels: MAX_SIDE * MAX_SIDE, failOn: 'error' })
      .rotate()
      .resize(SERVER_ICON_SIZE, SERVER_ICON_SIZE, {
        fit: 'cover',
        // Pixel art at or below icon size grows in crisp blocks; photos shrink smoothly.
        kernel: Math.max(meta.width, meta.height) <= SERVER_ICON_SIZE ? 'nearest' : 'lanczos3',
      })
      .png({ compressionLevel: 9 })
      .toBuffer();
  } catch {
    throw refuse('The picture could not be read: it may be damaged. Try another file.');
  }
}
