import { z } from '@hono/zod-openapi';

/** The error body every route may answer with. */
const ErrorSchema = z
  .object({
    error: z.string().openapi({ example: 'validation_error' }),
    message: z.string().openapi({ example: 'Username must be at least 3 characters' }),
    details: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({
        description:
          'Per-field messages (`fieldErrors`) and the like for 4xx; for 5xx `{ requestId }`, the reference ' +
          'of the server log entry with the details (also in the `X-Request-Id` header of every answer)',
      }),
  })
  .openapi('Error');

export const MessageSchema = z.object({ message: z.string() }).openapi('Message');

/** `{ success, message }`: the answer of public forms (password reset, contact). */
export const SuccessSchema = z.object({ success: z.literal(true), message: z.string() }).openapi('Success');

/** `content` for a JSON body or answer. */
export function json<T extends z.ZodType>(schema: T, description: string) {
  return { content: { 'application/json': { schema } }, description };
}

export const errorResponse = (description: string) => json(ErrorSchema, description);
