/** Text read from a file as JSON, typed as unknown (for a zod schema to say what it is); null when it is not JSON. */
export function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
