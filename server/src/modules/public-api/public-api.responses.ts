import { z } from '@hono/zod-openapi';
import { PUBLIC_ERROR_NAMES, PublicErrorSchema } from './public-api.schemas.ts';

// What every public API route answers with besides its own result: the rate-limit headers, the
// error bodies (with an example each), the key it is signed with, and the Idempotency-Key header.

/** Sent on every answer to a request with a key (and, counted per address, on those without one). */
const RATE_HEADERS = {
  'RateLimit-Limit': {
    description: 'Requests allowed per window: 150',
    schema: { type: 'integer' as const },
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the current window',
    schema: { type: 'integer' as const },
  },
  'RateLimit-Reset': {
    description: 'Seconds until the window starts again',
    schema: { type: 'integer' as const },
  },
  'RateLimit-Policy': {
    description: 'The rule: `150;w=60` (150 requests per 60 s)',
    schema: { type: 'string' as const },
  },
};

export function ok<T extends z.ZodType>(schema: T, description: string) {
  return { content: { 'application/json': { schema } }, description, headers: RATE_HEADERS };
}

export function failure(
  description: string,
  code: string,
  message: string,
  status: keyof typeof PUBLIC_ERROR_NAMES,
) {
  const example = { error: PUBLIC_ERROR_NAMES[status], message, details: { code } };
  return {
    content: { 'application/json': { schema: PublicErrorSchema, example } },
    description,
    headers: RATE_HEADERS,
  };
}

export const common = {
  401: failure('No key, or not a current key', 'unauthorized', 'Invalid or missing API key', 401),
  403: failure(
    'The key’s owner has no running Pro plan; or the plan or subscription refuses the change',
    'forbidden',
    'API access requires Pro plan subscription',
    403,
  ),
  429: {
    ...failure(
      'More than 150 requests in the key’s current minute',
      'rate_limited',
      'Rate limit exceeded. Please try again later.',
      429,
    ),
    headers: {
      ...RATE_HEADERS,
      'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' as const } },
    },
  },
};
export const notFound = failure(
  'No such instance of the key’s owner',
  'not_found',
  'Instance not found',
  404,
);
export const invalid = (what: string) => failure(what, 'validation_error', 'Instance name is required', 400);
export const conflict = (what: string) => failure(what, 'conflict', 'The instance is being deleted', 409);
export const upstream = (what: string) =>
  failure(what, 'operation_failed', 'Failed to create backup. Please try again.', 502);

const security: Record<string, string[]>[] = [{ ApiKeyHeader: [] }, { ApiKeyBearer: [] }];
export const base = { security };
export const idempotencyHeader = z.object({
  'Idempotency-Key': z.string().optional().openapi({
    description:
      'Any unique string up to 255 characters. The same key with the same body within 24 hours answers the first success again (header `Idempotent-Replayed: true`) instead of doing it twice; with another body, 409.',
    example: '6f1c3a5e-deploy-orders-db',
  }),
});
