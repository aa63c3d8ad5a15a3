import type { ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import {
  AppError,
  CaptchaError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  OperationFailedError,
  PayloadTooLargeError,
  PaymentProviderError,
  PlanLimitError,
  RateLimitError,
  SubscriptionInactiveError,
  UnauthorizedError,
  ValidationError,
} from './errors.ts';

/** The body of every error answer: `{ error, message, details? }`. */
export interface ErrorBody {
  error: string;
  message: string;
  details?: Record<string, unknown>;
}

const STATUS_BY_ERROR: ReadonlyArray<[new (...args: never[]) => AppError, ContentfulStatusCode]> = [
  [ValidationError, 400],
  [CaptchaError, 400],
  [UnauthorizedError, 401],
  [ForbiddenError, 403],
  [PlanLimitError, 403],
  [SubscriptionInactiveError, 403],
  [NotFoundError, 404],
  [ConflictError, 409],
  [PayloadTooLargeError, 413],
  [RateLimitError, 429],
  [OperationFailedError, 502],
  [PaymentProviderError, 502],
];

export function statusOf(error: AppError): ContentfulStatusCode {
  for (const [type, status] of STATUS_BY_ERROR) if (error instanceof type) return status;
  return 400;
}

export function errorBody(error: AppError): ErrorBody {
  return error.details
    ? { error: error.code, message: error.message, details: error.details }
    : { error: error.code, message: error.message };
}

/** Turns a failed zod parse of a request part into the app's 400 body, field messages included. */
export function validationBody(error: z.ZodError): ErrorBody {
  const fieldErrors: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const field = issue.path.join('.') || '_';
    fieldErrors[field] ??= [];
    fieldErrors[field].push(issue.message);
  }
  return {
    error: 'validation_error',
    message: error.issues[0]?.message ?? 'Invalid request',
    details: { fieldErrors },
  };
}

export const onError: ErrorHandler = (err, c) => {
  if (err instanceof AppError) {
    if (err instanceof RateLimitError) c.header('Retry-After', String(err.retryAfterSeconds));
    return c.json(errorBody(err), statusOf(err));
  }
  if (err instanceof HTTPException) {
    const status = err.status;
    const message = status === 400 ? 'Malformed request body' : err.message || 'Request failed';
    return c.json({ error: status === 400 ? 'bad_request' : 'http_error', message }, status);
  }
  console.error('Unhandled error', err);
  return c.json({ error: 'internal_error', message: 'Something went wrong on our side' }, 500);
};

export const onNotFound: NotFoundHandler = (c) =>
  c.json({ error: 'not_found', message: `No route for ${c.req.method} ${c.req.path}` }, 404);
