import { setTimeout as sleep } from 'node:timers/promises';
import type { JobHelpers } from 'graphile-worker';
import { DecryptionError } from '../../../lib/crypto.ts';
import { AppError } from '../../../lib/errors.ts';
import { type DriverStartup, MAX_DRIVER_WAIT_MS } from './driver-startup.ts';
import type { InstanceJobPayload } from './instance-jobs.ts';

// How one run of an instance job meets its deadline (instances.tasks.ts): the payload, waiting for the
// driver's start, one attempt against the deadline, and when an error ends the job instead of a retry.

/** The work did not finish before the job's deadline. */
export class DeadlineError extends Error {}

/**
 * How long a job whose work outlived its deadline keeps waiting for that work to settle (the instance
 * already shows the error). Meanwhile the instance's queue stays blocked, so a delete asked for after the
 * error cannot race a create that is still under way; a call that never settles is let go after this.
 */
const LINGER_MS = 60_000;

type Outcome<T> =
  | { ok: true; value: T }
  | {
      ok: false;
      /** Why: a DeadlineError when the work outlived the deadline. */
      error: unknown;
      /** Settles once the work given up on has settled (or LINGER_MS passed, or the runner stops). */
      lingering: Promise<void>;
    };

export function parsePayload(raw: unknown): InstanceJobPayload {
  const { instanceId, deadline, askedAt } = (raw ?? {}) as Partial<InstanceJobPayload>;
  if (
    typeof instanceId !== 'string' ||
    typeof deadline !== 'string' ||
    (askedAt !== undefined && typeof askedAt !== 'string')
  ) {
    throw new Error(`Malformed instance job payload: ${JSON.stringify(raw)}`);
  }
  return askedAt === undefined ? { instanceId, deadline } : { instanceId, deadline, askedAt };
}

/**
 * Waits for the driver's start to end (at once when it has), without spending an attempt, and answers
 * the payload with its deadline moved by the time the start kept the job waiting since it was asked for.
 * A start that has not ended `MAX_DRIVER_WAIT_MS` past the deadline is waited for no longer.
 */
export async function afterDriverStart(
  startup: DriverStartup,
  payload: InstanceJobPayload,
  helpers: JobHelpers,
): Promise<InstanceJobPayload> {
  const stop = new AbortController();
  const signal = AbortSignal.any([helpers.abortSignal, stop.signal]);
  const patience = Date.parse(payload.deadline) + MAX_DRIVER_WAIT_MS - Date.now();
  try {
    await Promise.race([startup.ended(signal), sleep(Math.max(0, patience), undefined, { signal })]);
  } finally {
    stop.abort();
  }
  if (payload.askedAt === undefined) return payload;
  const waited = startup.waitedSince(Date.parse(payload.askedAt));
  if (waited === 0) return payload;
  return { ...payload, deadline: new Date(Date.parse(payload.deadline) + waited).toISOString() };
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError()), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Runs one attempt of an operation against the deadline. A failure before the deadline is thrown, so
 * graphile-worker retries it after its backoff (e^attempts seconds), unless it cannot succeed by then:
 * the next attempt would start after the deadline, the attempts are used up, or the error is one of
 * ours (unavailable type, not found, invalid input), which a retry does not change. Then, and when the
 * work outlives the deadline, the outcome says why, and the caller ends the instance in `error`.
 */
export async function attempt<T>(
  payload: InstanceJobPayload,
  helpers: JobHelpers,
  work: () => Promise<T>,
): Promise<Outcome<T>> {
  const settled = Promise.resolve();
  const left = Date.parse(payload.deadline) - Date.now();
  if (!(left > 0)) return { ok: false, error: new DeadlineError(), lingering: settled };
  const running = work();
  try {
    return { ok: true, value: await withTimeout(running, left) };
  } catch (error) {
    if (error instanceof DeadlineError) {
      const done = new AbortController();
      const ended = running.then(
        () => done.abort(),
        () => done.abort(),
      );
      const signal = AbortSignal.any([done.signal, helpers.abortSignal]);
      const lingering = Promise.race([ended, sleep(LINGER_MS, undefined, { signal }).catch(() => {})]);
      return { ok: false, error, lingering };
    }
    const { attempts, max_attempts: maxAttempts } = helpers.job;
    const nextTry = Date.now() + Math.exp(Math.min(attempts, 10)) * 1000;
    if (error instanceof AppError || attempts >= maxAttempts || nextTry >= Date.parse(payload.deadline)) {
      return { ok: false, error, lingering: settled };
    }
    throw error;
  }
}

/** Whether an error thrown outside `attempt` (database, stored secrets) ends the job rather than retrying. */
export function isFinal(error: unknown, payload: InstanceJobPayload, helpers: JobHelpers): boolean {
  const { attempts, max_attempts: maxAttempts } = helpers.job;
  const nextTry = Date.now() + Math.exp(Math.min(attempts, 10)) * 1000;
  return (
    error instanceof DecryptionError || attempts >= maxAttempts || nextTry >= Date.parse(payload.deadline)
  );
}
