import { randomUUID } from 'node:crypto';

/**
 * What customers see of a failure on our side is a short message and a reference; the raw error
 * (installer output, host paths, a database server's or a payment provider's own words) goes to the
 * server log under that same reference, so support can find it. Requests use their request id as the
 * reference (lib/request-id.ts), jobs a fresh one.
 */

/** Where a line of the server log goes. */
export type LogLine = (line: string) => void;

/** A short random reference (12 hex characters; from randomUUID, which draws on a cached entropy pool). */
export function newReference(): string {
  return randomUUID().slice(-12);
}

/** `message` followed by the reference: "Deployment failed. Reference: 3f9a1c2b7d4e". */
export function withReference(message: string, reference: string): string {
  return `${/[.!?]$/.test(message) ? message : `${message}.`} Reference: ${reference}`;
}

/** Everything known about an error, for the log: its stack (or message), details and causes. */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 5; depth += 1) {
    if (current instanceof Error) {
      parts.push(current.stack ?? `${current.name}: ${current.message}`);
      const details = (current as { details?: unknown }).details;
      if (details !== undefined) parts.push(`details: ${safeJson(details)}`);
      current = current.cause;
    } else {
      parts.push(typeof current === 'string' ? current : safeJson(current));
      current = undefined;
    }
  }
  return parts.join('\ncaused by: ');
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Logs `error` in full under a fresh reference, with `context` (what was being done), and answers the
 * customer's message: `message` plus that reference. The one way a raw error turns into something a
 * customer may read outside a request (job failures stored on an instance, notifications).
 */
export function reportFailure(log: LogLine, context: string, error: unknown, message: string): string {
  const reference = newReference();
  log(`${context} failed [ref ${reference}]: ${describeError(error)}`);
  return withReference(message, reference);
}
