import type { ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import type { AppEnv } from './app-env.ts';
import { describeError, type LogLine, newReference, withReference } from './error-reference.ts';
import {
  AppError,
  CaptchaError,
  ConflictError,
  ForbiddenError,
  GoneError,
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
  [GoneError, 410],
  [PayloadTooLargeError, 413],
  [RateLimitError, 429],
  [OperationFailedError, 502],
  [PaymentProviderError, 502],
];

function statusOf(error: AppError): ContentfulStatusCode {
  for (const [type, status] of STATUS_BY_ERROR) if (error instanceof type) return status;
  return 400;
}

function errorBody(error: AppError): ErrorBody {
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

/** The customer's text of an unexpected failure; its details are only in the server log. */
const INTERNAL_ERROR_MESSAGE = 'Something went wrong on our side';

/**
 * The app's error handler. Domain errors answer with their status, message and details (written for
 * customers), except server-side ones (5xx: a provisioning backend or payment provider failed): they keep
 * their customer message, trade their details for the request id, and their cause is logged under that
 * id. Anything else is logged in full and answered 500 with a generic message naming the id.
 */
export function createErrorHandler(log: LogLine): ErrorHandler<AppEnv> {
  return (err, c) => {
    const requestId = c.var.requestId ?? newReference();
    const where = `[${requestId}] ${c.req.method} ${c.req.path}`;
    if (err instanceof AppError) {
      if (err instanceof RateLimitError) c.header('Retry-After', String(err.retryAfterSeconds));
      const status = statusOf(err);
      if (status < 500) return c.json(errorBody(err), status);
      const cause = err.cause === undefined ? '' : `\ncaused by: ${describeError(err.cause)}`;
      log(`${where} answered ${status} ${err.code}: ${err.message}${cause}`);
      return c.json({ error: err.code, message: err.message, details: { requestId } }, status);
    }
    if (err instanceof HTTPException && err.status < 500) {
      const status = err.status;
      const message = status === 400 ? 'Malformed request body' : err.message || 'Request failed';
      return c.json({ error: status === 400 ? 'bad_request' : 'http_error', message }, status);
    }
    log(`${where} failed: ${describeError(err)}`);
    return c.json(
      {
        error: 'internal_error',
        message: withReference(INTERNAL_ERROR_MESSAGE, requestId),
        details: { requestId },
      },
      500,
    );
  };
}

export const onNotFound: NotFoundHandler = (c) =>
  c.json({ error: 'not_found', message: `No route for ${c.req.method} ${c.req.path}` }, 404);
