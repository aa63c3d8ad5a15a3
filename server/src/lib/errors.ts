/**
 * Domain errors. They know nothing of HTTP: `lib/error-handler.ts` maps them to status codes in one
 * place. Each has a stable `code` that clients may rely on. `message` and `details` are shown to the
 * customer; what must not be (a provider's or a server's own error) goes in `cause`, which is only logged.
 */
export class AppError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: string, message: string, details?: Record<string, unknown>, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

/** Input that passed the schema but breaks a rule (e.g. wrong current password). */
export class ValidationError extends AppError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('validation_error', message, details);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Authentication required') {
    super('unauthorized', message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'You do not have access to this resource') {
    super('forbidden', message);
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Not found') {
    super('not_found', message);
  }
}

/** The bot check (Turnstile) was missing or did not pass. */
export class CaptchaError extends AppError {
  constructor(message = 'Please complete the CAPTCHA verification') {
    super('captcha_failed', message);
  }
}

/** A body or upload larger than the route accepts. */
export class PayloadTooLargeError extends AppError {
  constructor(message = 'Request body is too large') {
    super('payload_too_large', message);
  }
}

/** A link that worked once and no longer does (used already, or its session ended). */
export class GoneError extends AppError {
  constructor(message: string) {
    super('gone', message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('conflict', message, details);
  }
}

/** A changing action refused because the subscription is inactive. */
export class SubscriptionInactiveError extends AppError {
  constructor(message: string) {
    super('subscription_inactive', message);
  }
}

/**
 * Work the server handed to a provisioning backend failed there (answered as 502). `message` is the
 * customer's; the backend's own error, if any, goes in `cause` (logged with the request id).
 */
export class OperationFailedError extends AppError {
  constructor(message: string, options?: ErrorOptions) {
    super('operation_failed', message, undefined, options);
  }
}

export class PlanLimitError extends AppError {
  constructor(message: string) {
    super('plan_limit', message);
  }
}

export class RateLimitError extends AppError {
  readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number, message = 'Too many requests. Please try again later.') {
    super('rate_limited', message, { retryAfterSeconds });
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * A payment provider (Stripe, PayPal, an Ethereum RPC) failed or answered something unusable (502).
 * `message` is the customer's; the provider's own error goes in `cause` (logged with the request id).
 */
export class PaymentProviderError extends AppError {
  constructor(message: string, options?: ErrorOptions) {
    super('payment_provider_error', message, undefined, options);
  }
}

/**
 * Runs work handed to a backend (the provisioning driver, a payment provider). Our own errors pass
 * through (their messages are written for customers); anything else (a raw error with host paths or a
 * server's own words) becomes `failure(cause)`, which keeps it only as its logged cause.
 */
export async function backendCall<T>(
  work: () => Promise<T>,
  failure: (cause: unknown) => AppError,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw failure(error);
  }
}
