import { rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * Backups were once kept by the local driver in `<root>/backups/<instance id>/`; they now live in the
 * platform's backup storage (server/src/backup-storage/), which the driver never sees. Deleting an instance
 * still removes what an older version left there.
 */
export async function deleteLegacyBackups(root: string, id: string): Promise<void> {
  await rm(path.join(root, 'backups', id), { recursive: true, force: true });
}
