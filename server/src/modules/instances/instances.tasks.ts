import { setTimeout as sleep } from 'node:timers/promises';
import type { JobHelpers, TaskList } from 'graphile-worker';
import type { Db, DbOrTx } from '../../db/database.ts';
import type { InstanceRow } from '../../db/tables/instances.ts';
import { type Cipher, DecryptionError } from '../../lib/crypto.ts';
import { type LogLine, reportFailure } from '../../lib/error-reference.ts';
import { AppError, ConflictError } from '../../lib/errors.ts';
import { type ProvisioningDriver, ProvisioningUnavailableError } from '../../provisioning/driver.ts';
import type { Deployment, SiteUrls } from '../../provisioning/engine.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import { deployRequestOf } from './deploy-specs.ts';
import { type DriverStartup, MAX_DRIVER_WAIT_MS, NOTHING_STARTING } from './driver-startup.ts';
import { TYPE_INFO } from './instance-catalog.ts';
import { type InstanceJobPayload, type InstanceOperation, TASK_OF } from './instance-jobs.ts';
import { openPendingPassword, openSecret, type StoredSecret, sealSecret } from './instance-secrets.ts';
import {
  deleteInstanceRow,
  findCredentials,
  findInstanceById,
  updateCredentials,
  updateInstance,
} from './instances.repository.ts';

export interface InstanceTaskDeps {
  db: Db;
  driver: ProvisioningDriver;
  cipher: Cipher;
  notifications: Pick<NotificationsService, 'notify' | 'publishInstanceEvent'>;
  /** Where the driver's start stands: jobs wait for it (main.ts); absent: nothing is starting. */
  startup?: DriverStartup;
}

/** The work did not finish before the job's deadline. */
class DeadlineError extends Error {}

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

function parsePayload(raw: unknown): InstanceJobPayload {
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
async function afterDriverStart(
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

/** Our own error's words for the customer: an unavailable type's reason, else its message. */
const reasonOf = (error: AppError) =>
  error instanceof ProvisioningUnavailableError
    ? String(error.details?.reason ?? error.message)
    : error.message;

/**
 * Runs one attempt of an operation against the deadline. A failure before the deadline is thrown, so
 * graphile-worker retries it after its backoff (e^attempts seconds), unless it cannot succeed by then:
 * the next attempt would start after the deadline, the attempts are used up, or the error is one of
 * ours (unavailable type, not found, invalid input), which a retry does not change. Then, and when the
 * work outlives the deadline, the outcome says why, and the caller ends the instance in `error`.
 */
async function attempt<T>(
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

const label = (row: InstanceRow) => `${TYPE_INFO[row.type].name} instance "${row.name}"`;

/** How each operation's failure reads: "Deployment failed: …" or "Deployment failed. Reference: …". */
const FAILED: Record<InstanceOperation, string> = {
  deploy: 'Deployment failed',
  delete: 'Deletion failed',
  suspension: 'Suspension failed',
  password: 'Password change failed',
};

/** Whether an error thrown outside `attempt` (database, stored secrets) ends the job rather than retrying. */
function isFinal(error: unknown, payload: InstanceJobPayload, helpers: JobHelpers): boolean {
  const { attempts, max_attempts: maxAttempts } = helpers.job;
  const nextTry = Date.now() + Math.exp(Math.min(attempts, 10)) * 1000;
  return (
    error instanceof DecryptionError || attempts >= maxAttempts || nextTry >= Date.parse(payload.deadline)
  );
}

/**
 * The graphile-worker tasks of the instance engine (see instance-jobs.ts). Each reads the instance when
 * it runs and does what the row asks for; a missing row (deleted meanwhile) ends it quietly. Status
 * changes, notifications and the live-stream signal are written in one transaction.
 */
export function createInstanceTasks({
  db,
  driver,
  cipher,
  notifications,
  startup = NOTHING_STARTING,
}: InstanceTaskDeps): TaskList {
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

  /** The row's custom domain when its ownership is proven (verified or attached), else null. */
  async function wantedDomain(id: string): Promise<string | null> {
    const now = await findInstanceById(db, id);
    return now?.domain_status === 'verified' || now?.domain_status === 'attached' ? now.custom_domain : null;
  }

  /**
   * Deploys (or brings back) the instance with its stored passwords and keys, so a retry or a reconcile
   * gives the very same credentials; then brings its custom domain (when its type has domains) and its
   * suspension in line with the row. Answers the deployment and the domain it serves, if any.
   */
  async function deployInstance(
    row: InstanceRow,
    secret: StoredSecret,
  ): Promise<{ deployment: Deployment; attachedDomain?: string }> {
    const request = deployRequestOf(row, secret);
    const engine = driver.engine(request.type);
    const deployment = await engine.deploy(request.spec);
    const servedDomain = (urls: SiteUrls | undefined) =>
      urls?.url.startsWith('https://') ? new URL(urls.url).hostname : null;
    if (engine.domains && !row.suspended) {
      // The domain as the row says now (a synchronous change may have landed since the job read it);
      // only a domain whose ownership was proven (verified or attached) is served.
      const wanted = await wantedDomain(row.id);
      if (servedDomain(deployment.urls) !== wanted)
        deployment.urls = await engine.domains.set(row.id, wanted);
    }
    if (row.suspended) await engine.suspend(row.id);
    else if (row.deployed_at !== null) await engine.resume(row.id);
    return { deployment, attachedDomain: servedDomain(deployment.urls) ?? undefined };
  }

  type Step = (row: InstanceRow, payload: InstanceJobPayload, helpers: JobHelpers) => Promise<void>;

  /**
   * One task: loads the row (none: nothing to do), runs the step, and turns an error the step did not
   * handle (the database, a secret that no longer decrypts) into a retry, or, once retrying cannot help
   * any more, into the operation's failure: never an instance waiting forever.
   */
  const task =
    (operation: InstanceOperation, step: Step) =>
    async (raw: unknown, helpers: JobHelpers): Promise<void> => {
      const payload = await afterDriverStart(startup, parsePayload(raw), helpers);
      const row = await findInstanceById(db, payload.instanceId);
      if (!row) return;
      try {
        await step(row, payload, helpers);
      } catch (error) {
        if (!isFinal(error, payload, helpers)) throw error;
        await giveUp(operation, row, failureMessage(FAILED[operation], error, { operation, row, helpers }));
      }
    };

  const tasks: Record<InstanceOperation, Step> = {
    /** Creates the tenant (or makes sure it exists) with the stored password, and applies suspension. */
    async deploy(row, payload, helpers) {
      if (row.status === 'deleting') return;
      const stored = await findCredentials(db, row.id);
      if (!stored) return giveUp('deploy', row, `${FAILED.deploy}: its credentials are missing`);
      const secret = openSecret(cipher, row.id, stored.secret);
      const outcome = await attempt(payload, helpers, () => deployInstance(row, secret));
      if (!outcome.ok) {
        const message = failureMessage(FAILED.deploy, outcome.error, { operation: 'deploy', row, helpers });
        await giveUp('deploy', row, message);
        return outcome.lingering;
      }
      const { deployment, attachedDomain } = outcome.value;
      const { database: credentials, sftp, urls } = deployment;
      await db.transaction().execute(async (trx) => {
        // A verified domain the deploy attached is attached now.
        if (attachedDomain) {
          await updateInstance(
            trx,
            row.id,
            { domain_status: 'attached', domain_message: 'Verified and attached', ssl: null },
            { domainVerified: attachedDomain },
          );
        }
        const updated = await updateInstance(
          trx,
          row.id,
          {
            status: row.suspended ? 'suspended' : 'running',
            status_message: null,
            deployed_at: row.deployed_at ?? new Date(),
            ...(urls && { url: urls.url, admin_url: urls.adminUrl }),
          },
          // Not over a delete, nor over a restore accepted meanwhile: its job, next in the instance's
          // queue, sets running once the data is back (a redeploy at start used to drop it unseen).
          { statusIn: ['deploying', 'running', 'suspended', 'error'] },
        );
        if (!updated) return;
        await updateCredentials(trx, row.id, {
          secret: sealSecret(cipher, row.id, {
            ...secret,
            ...(credentials && {
              host: credentials.host,
              port: credentials.port,
              database: credentials.database,
              user: credentials.user,
            }),
            ...(sftp && { sftpHost: sftp.host, sftpPort: sftp.port, sftpUser: sftp.user }),
          }),
        });
        if (row.status === 'deploying') {
          await notifications.notify(
            row.user_id,
            {
              type: 'instance',
              title: 'Instance ready',
              message: `Your ${label(row)} is ready. Its connection details are on the Instances page.`,
            },
            trx,
          );
        }
        await publish(trx, updated);
      });
    },

    /** Drops the tenant, then the row (its credentials go with it). */
    async delete(row, payload, helpers) {
      if (row.status !== 'deleting') return;
      const outcome = await attempt(payload, helpers, async () => {
        try {
          await driver.engine(row.type).delete(row.id);
        } catch (error) {
          // A type that cannot be provisioned here never got a tenant unless a deploy once succeeded.
          if (!(error instanceof ProvisioningUnavailableError && row.deployed_at === null)) throw error;
        }
      });
      if (!outcome.ok) {
        const message = failureMessage(FAILED.delete, outcome.error, { operation: 'delete', row, helpers });
        await giveUp('delete', row, message);
        return outcome.lingering;
      }
      await db.transaction().execute(async (trx) => {
        const deleted = await deleteInstanceRow(trx, row.id);
        if (!deleted) return;
        await notifications.publishInstanceEvent(
          row.user_id,
          { id: row.id, status: 'deleted', statusMessage: null },
          trx,
        );
      });
    },

    /** Locks the tenant's logins out or lets them in again, as `suspended` says. */
    async suspension(row, payload, helpers) {
      // Before the first successful deploy the deploy job applies suspension itself.
      if (row.status === 'deleting' || row.deployed_at === null) return;
      const outcome = await attempt(payload, helpers, async () => {
        const engine = driver.engine(row.type);
        if (row.suspended) await engine.suspend(row.id);
        else await engine.resume(row.id);
      });
      if (!outcome.ok) {
        const failed = `${row.suspended ? 'Suspending' : 'Resuming'} failed`;
        const message = failureMessage(failed, outcome.error, { operation: 'suspension', row, helpers });
        await giveUp('suspension', row, message);
        return outcome.lingering;
      }
      await db.transaction().execute(async (trx) => {
        const updated = await updateInstance(
          trx,
          row.id,
          { status: row.suspended ? 'suspended' : 'running', status_message: null },
          { statusIn: ['running', 'suspended'] },
        );
        if (updated) await publish(trx, updated);
      });
    },

    /** Applies the pending password (closing live sessions) and makes it the stored one. */
    async password(row, payload, helpers) {
      if (row.status === 'deleting') return;
      const stored = await findCredentials(db, row.id);
      const pending = stored?.pending_password;
      if (!stored || !pending) return;
      const password = openPendingPassword(cipher, row.id, pending);
      const outcome = await attempt(payload, helpers, async () => {
        if (row.deployed_at === null) throw new ConflictError('the instance has not been deployed');
        const change = driver.engine(row.type).password;
        if (!change)
          throw new ConflictError(`${TYPE_INFO[row.type].name} instances have no password to change`);
        await change.change(row.id, password);
      });
      if (!outcome.ok) {
        const message = failureMessage(FAILED.password, outcome.error, {
          operation: 'password',
          row,
          helpers,
        });
        await giveUp('password', row, message, pending);
        return outcome.lingering;
      }
      await db.transaction().execute(async (trx) => {
        // The tenant has this password now, whatever was asked for meanwhile (its own job follows).
        const secret = { ...openSecret(cipher, row.id, stored.secret), password };
        await updateCredentials(trx, row.id, { secret: sealSecret(cipher, row.id, secret) });
        await updateCredentials(trx, row.id, { pending_password: null, password_error: null }, pending);
      });
    },
  };

  return Object.fromEntries(
    (Object.keys(tasks) as InstanceOperation[]).map((operation) => [
      TASK_OF[operation],
      task(operation, tasks[operation]),
    ]),
  );
}
