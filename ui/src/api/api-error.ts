import type { ApiError } from '@berth/openapi';

/** A non-2xx answer of the Berth API, with the server's `{ error, message, details? }` body when given. */
export class ApiRequestError extends Error {
  readonly status: number;
  readonly body: ApiError | undefined;

  constructor(status: number, body: ApiError | undefined) {
    super(body?.message ?? `Request failed with status ${status}`);
    this.name = 'ApiRequestError';
    this.status = status;
    this.body = body;
  }
}

function isApiErrorBody(value: unknown): value is ApiError {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { message?: unknown }).message === 'string' &&
    typeof (value as { error?: unknown }).error === 'string'
  );
}

interface ClientResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** Awaits an openapi-fetch call and returns its data, or throws an ApiRequestError. */
export async function unwrap<T>(request: Promise<ClientResult<T>>): Promise<T> {
  const { data, error, response } = await request;
  if (error !== undefined || data === undefined || !response.ok) {
    throw new ApiRequestError(response.status, isApiErrorBody(error) ? error : undefined);
  }
  return data;
}

export const isUnauthorized = (error: unknown): boolean =>
  error instanceof ApiRequestError && error.status === 401;

/** The server's message when it sent one, else the given fallback (network errors, timeouts). */
export function errorMessage(error: unknown, fallback: string): string {
  return error instanceof ApiRequestError && error.body?.message ? error.body.message : fallback;
}

/**
 * Per-field messages of a failed request: `details.fieldErrors` (validation) or `details.field`
 * (a conflict such as a taken username), first message per field.
 */
export function fieldErrorsOf(error: unknown): Record<string, string> {
  if (!(error instanceof ApiRequestError) || !error.body?.details) return {};
  const { details, message } = error.body;
  const result: Record<string, string> = {};
  const fieldErrors = details.fieldErrors;
  if (typeof fieldErrors === 'object' && fieldErrors !== null) {
    for (const [field, messages] of Object.entries(fieldErrors)) {
      const first: unknown = Array.isArray(messages) ? messages[0] : messages;
      if (typeof first === 'string') result[field] = first;
    }
  }
  if (typeof details.field === 'string' && !(details.field in result)) result[details.field] = message;
  return result;
}

/**
 * Like errorMessage, with a third text for requests that got no answer at all (network down,
 * timeout): the server's message, else `fallback` for an answer without one, else `network`.
 */
export function requestErrorMessage(error: unknown, fallback: string, network: string): string {
  if (!(error instanceof ApiRequestError)) return network;
  return error.body?.message || fallback;
}
