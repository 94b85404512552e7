import { z } from 'zod';
import { errorCodes, type ErrorCode } from './errors.ts';

/** Success answers: `{"status":"SUCCESS","result":…}`. */
export function successEnvelope<T extends z.ZodType>(result: T) {
  return z.object({ status: z.literal('SUCCESS'), result });
}

export const errorEnvelope = z.object({
  status: z.string(),
  message: z.string(),
  fields: z.record(z.string(), z.string()).optional(),
  /** What really went wrong in an unexpected failure (INTERNAL_ERROR); sent only outside production. */
  details: z.string().optional(),
});
export type ErrorEnvelope = z.infer<typeof errorEnvelope>;

export type Success<T> = { status: 'SUCCESS'; result: T };
export type Failure = { status: ErrorCode; message: string; fields?: Record<string, string>; details?: string };

export const knownErrorCode = z.enum(errorCodes as [ErrorCode, ...ErrorCode[]]);
