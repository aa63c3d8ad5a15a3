import type { JobHelpers } from 'graphile-worker';
import type { Db, DbOrTx } from '../../../db/database.ts';
import type { InstanceRow } from '../../../db/tables/instances.ts';
import type { Cipher } from '../../../lib/crypto.ts';
import { type LogLine, reportFailure } from '../../../lib/error-reference.ts';
import { AppError } from '../../../lib/errors.ts';
import { type ProvisioningDriver, ProvisioningUnavailableError } from '../../../provisioning/driver.ts';
import type { NotificationsService } from '../../notifications/notifications.service.ts';
import { typeName } from '../instance-catalog.ts';
import { findCredentials, updateCredentials, updateInstance } from '../instances.repository.ts';
import type { DriverStartup } from './driver-startup.ts';
import { DeadlineError } from './instance-job-attempts.ts';
import { type InstanceJobPayload, type InstanceOperation, TASK_OF } from './instance-jobs.ts';

export interface InstanceTaskDeps {
  db: Db;
  driver: ProvisioningDriver;
  cipher: Cipher;
  notifications: Pick<NotificationsService, 'notify' | 'publishInstanceEvent'>;
  /** Where the driver's start stands: jobs wait for it (main.ts); absent: nothing is starting. */
  startup?: DriverStartup;
}

export const label = (row: InstanceRow) => `${typeName(row.type)} instance "${row.name}"`;

/** How each operation's failure reads: "Deployment failed: …" or "Deployment failed. Reference: …". */
export const FAILED: Record<InstanceOperation, string> = {
  deploy: 'Deployment failed',
  delete: 'Deletion failed',
  suspension: 'Suspension failed',
  password: 'Password change failed',
};

/** Our own error's words for the customer: an unavailable type's reason, else its message. */
const reasonOf = (error: AppError) =>
  error instanceof ProvisioningUnavailableError
    ? String(error.details?.reason ?? error.message)
    : error.message;

/** One operation's work on the row it was asked for (instances.tasks.ts). */
export type Step = (row: InstanceRow, payload: InstanceJobPayload, helpers: JobHelpers) => Promise<void>;

/**
 * What the instance tasks share: the live-stream signal, the owner's notification, and how an operation
 * that gave up ends (the instance in `error`, or a dropped password change) with words for the customer.
 */
export function instanceTaskContext({ db, notifications }: InstanceTaskDeps) {
  const publish = (trx: DbOrTx, row: InstanceRow) =>
    notifications.publishInstanceEvent(
      row.user_id,
      { id: row.id, status: row.status, statusMessage: row.status_message },
      trx,
    );

  const tell = (trx: DbOrTx, row: InstanceRow, title: string, message: string) =>
    notifications.notify(
      row.user_id,
      { type: 'instance', title, message: `Your ${label(row)}: ${message}` },
      trx,
    );

  /**
   * Ends an operation that gave up, with `message`: a failed password change is dropped (the old
   * password stays) and reported to its owner; any other failure puts the instance in `error`.
   */
  async function giveUp(operation: InstanceOperation, row: InstanceRow, message: string, pending?: string) {
    await db.transaction().execute(async (trx) => {
      if (operation === 'password') {
        const stored = pending ?? (await findCredentials(trx, row.id))?.pending_password;
        if (!stored) return;
        const cleared = await updateCredentials(
          trx,
          row.id,
          { pending_password: null, password_error: message },
          stored,
        );
        if (cleared) await tell(trx, row, 'Password change failed', message);
        return;
      }
      const updated = await updateInstance(
        trx,
        row.id,
        { status: 'error', status_message: message },
        // A deploy or suspension giving up leaves an instance being deleted to its delete job.
        operation === 'delete' ? { statusIn: ['deleting'] } : { statusNot: 'deleting' },
      );
      if (!updated) return;
      await tell(trx, row, operation === 'delete' ? 'Instance deletion failed' : 'Instance failed', message);
      await publish(trx, updated);
    });
  }

  /**
   * What the customer reads of a failure (status message, notification, password error): our own words
   * for our own errors (a deadline, an unavailable type, invalid input); for anything else (the driver's
   * raw output, a database client's error) a reference to the log line that holds it.
   */
  function failureMessage(
    failed: string,
    error: unknown,
    context: { operation: InstanceOperation; row: InstanceRow; helpers: JobHelpers },
  ): string {
    const what = `${TASK_OF[context.operation]} of ${context.row.id}`;
    const log: LogLine = (line) => context.helpers.logger.error(line);
    if (error instanceof DeadlineError) {
      log(`${what} gave up: it did not finish in time`);
      return `${failed}: it did not finish in time`;
    }
    if (error instanceof AppError) {
      const detail =
        error instanceof ProvisioningUnavailableError && error.detail ? ` (${error.detail})` : '';
      log(`${what} gave up: ${reasonOf(error)}${detail}`);
      return `${failed}: ${reasonOf(error)}`;
    }
    return reportFailure(log, what, error, failed);
  }

  return { publish, tell, giveUp, failureMessage };
}

export type InstanceTaskContext = ReturnType<typeof instanceTaskContext>;
