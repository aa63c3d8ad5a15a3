import { Transform } from 'node:stream';
import { OperationFailedError } from './errors.ts';

/**
 * A deadline for a transfer whose pace someone else sets: a tenant's dump, a tar of a tenant's files, a
 * load into a tenant's database. A tenant can stall any of them (a table lock held, a process stopped),
 * and a job that waits forever holds a worker slot and the instance's lock. The watchdog fails the
 * transfer when no byte moved for `stallMs`, or when it ran past `budgetMs` altogether, and calls
 * `abort` so that the caller tears the process down. Bytes count in either direction: each `tap()`
 * placed in a pipeline marks progress as data flows through it.
 */
export interface WatchdogOptions {
  /** What is transferred, in the customer's words ("the site's files"). */
  what: string;
  /** No byte for this long fails it (default 2 minutes). */
  stallMs?: number;
  /** Past this it fails whatever its pace (default 6 hours). */
  budgetMs?: number;
  /** Tears the transfer down; called once, with the error the caller will see. */
  abort: (error: TransferStoppedError) => void;
}

/** A transfer the watchdog stopped; its message is the customer's. */
export class TransferStoppedError extends OperationFailedError {}

export interface Watchdog {
  /** A pass-through that counts as progress. */
  tap(): Transform;
  /** Marks progress without a stream (a step that ended). */
  touch(): void;
  /** Ends the watch (the transfer finished, well or not). */
  stop(): void;
  /** The error it stopped the transfer with, if it did. */
  readonly stopped: TransferStoppedError | undefined;
}

const DEFAULT_STALL_MS = 2 * 60_000;
const DEFAULT_BUDGET_MS = 6 * 3_600_000;

const minutes = (ms: number) =>
  ms % 60_000 === 0 && ms >= 60_000 ? `${ms / 60_000} minute${ms === 60_000 ? '' : 's'}` : `${ms / 1000} s`;

export function watchdog(options: WatchdogOptions): Watchdog {
  const stallMs = options.stallMs ?? DEFAULT_STALL_MS;
  const budgetMs = options.budgetMs ?? DEFAULT_BUDGET_MS;
  let stopped: TransferStoppedError | undefined;
  let done = false;
  const fail = (message: string) => {
    if (done) return;
    done = true;
    clearTimeout(stall);
    clearTimeout(budget);
    stopped = new TransferStoppedError(message);
    options.abort(stopped);
  };
  let stall = setTimeout(
    () => fail(`${options.what} made no progress for ${minutes(stallMs)} and the transfer was stopped`),
    stallMs,
  );
  const budget = setTimeout(
    () => fail(`${options.what} took longer than ${minutes(budgetMs)} and the transfer was stopped`),
    budgetMs,
  );
  stall.unref();
  budget.unref();
  const touch = () => {
    if (done) return;
    clearTimeout(stall);
    stall = setTimeout(
      () => fail(`${options.what} made no progress for ${minutes(stallMs)} and the transfer was stopped`),
      stallMs,
    );
    stall.unref();
  };
  return {
    tap: () =>
      new Transform({
        transform(chunk: Buffer, _encoding, next) {
          touch();
          next(null, chunk);
        },
      }),
    touch,
    stop() {
      done = true;
      clearTimeout(stall);
      clearTimeout(budget);
    },
    get stopped() {
      return stopped;
    },
  };
}
