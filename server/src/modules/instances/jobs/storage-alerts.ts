import type { Db } from '../../../db/database.ts';
import type { InstanceRow } from '../../../db/tables/instances.ts';
import type { LogLine } from '../../../lib/error-reference.ts';
import type { ProvisioningDriver, StorageLimitEvent } from '../../../provisioning/driver.ts';
import type { NotificationsService } from '../../notifications/notifications.service.ts';
import { typeName } from '../instance-catalog.ts';
import { findInstanceById } from '../instances.repository.ts';
import { kindOf } from '../kinds/kinds.ts';

/**
 * Tells customers when a database of theirs (a MySQL instance, or a WordPress site's database) reaches
 * its size and its writes are refused, and when it accepts them again. The driver hears it on its own
 * (provisioning/local/mariadb-quota.ts), outside any job; this turns each change into a notification
 * for the instance's owner. Started and stopped by main.ts with the other background work.
 */

const MIB = 1024 * 1024;

/** "512 MiB", "1 GiB", "1.5 GiB". */
function sizeText(bytes: number): string {
  const mib = Math.round(bytes / MIB);
  if (mib < 1024) return `${mib} MiB`;
  return `${Number((mib / 1024).toFixed(1))} GiB`;
}

/** The notification of `event` for the instance `row`. */
function storageAlert(row: InstanceRow, event: StorageLimitEvent): { title: string; message: string } {
  const what = `Your ${typeName(row.type)} instance "${row.name}"`;
  const size = sizeText(event.limitBytes);
  if (!event.full) {
    return {
      title: 'Database writable again',
      message: `${what} is below the size of its database (${size}) again: it accepts new data.`,
    };
  }
  if (event.heldBytes !== undefined) {
    // Stopped short of its size by the hold: the server's doing, and the admins have been told.
    return {
      title: 'Database paused for lack of space',
      message: `${what} takes no new data for now: it uses ${sizeText(event.usedBytes)} of its ${size} database, but this server's disk is fuller than planned and holds it at ${sizeText(event.heldBytes)}. Our team has been told; it takes new data again on its own once there is room, and nothing stored is lost.`,
    };
  }
  return {
    title: 'Database full',
    message: `${what} has filled its database (${size}): ${kindOf(row.type).entry.fullWords}`,
  };
}

export function createStorageAlerts(deps: {
  db: Db;
  driver: Pick<ProvisioningDriver, 'onStorageLimit'>;
  notifications: Pick<NotificationsService, 'notify'>;
}) {
  const { db, notifications } = deps;
  let unsubscribe: (() => void) | undefined;

  async function tell(event: StorageLimitEvent): Promise<void> {
    const row = await findInstanceById(db, event.instanceId);
    if (!row || row.status === 'deleting') return;
    await notifications.notify(row.user_id, { type: 'instance', ...storageAlert(row, event) });
  }

  return {
    tell,
    start(log: LogLine) {
      unsubscribe ??= deps.driver.onStorageLimit((event) => {
        tell(event).catch((error: unknown) =>
          log(
            `storage alert for ${event.instanceId} not sent: ${error instanceof Error ? error.message : String(error)}`,
          ),
        );
      });
    },
    async stop() {
      unsubscribe?.();
      unsubscribe = undefined;
    },
  };
}
