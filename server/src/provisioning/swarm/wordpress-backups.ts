import type { BackupCapability } from '../engine.ts';
import { FLAVORS } from './database-flavors.ts';
import { execIn, runningContainer } from './node-exec.ts';
import { instanceNames } from './services.ts';
import type { SwarmContext } from './swarm-context.ts';
import type { WebState } from './web-instance.ts';
import { WP_ROOT } from './wordpress-services.ts';

/**
 * Backups of a WordPress site on a swarm (wordpress-engine.ts): the database dumped in its own container,
 * wp-content archived as www-data in the site's; a restore checks the table count it recorded.
 */
export function wordpressBackups(
  ctx: SwarmContext,
  requireState: (id: string) => Promise<WebState>,
): BackupCapability {
  const withLock = <T>(id: string, task: () => Promise<T>) => ctx.lock(`instance:${id}`, task);

  const dbTarget = async (id: string) =>
    runningContainer((await requireState(id)).region, instanceNames(id).dbService);
  const appTarget = async (id: string) =>
    runningContainer((await requireState(id)).region, instanceNames(id).service);

  return {
    create: (id, input) =>
      withLock(id, async () => {
        const db = await dbTarget(id);
        const app = await appTarget(id);
        const dump = FLAVORS.mysql.dump('wordpress');
        const count = FLAVORS.mysql.countTables('wordpress');
        return ctx.backups.create(
          id,
          input,
          [
            {
              name: 'db.sql.gz',
              write: (sink) => execIn(db, dump.cmd, { user: dump.user, stdout: sink }).then(() => {}),
            },
            {
              name: 'files.tar.gz',
              write: (sink) =>
                execIn(app, ['tar', '-C', WP_ROOT, '-cf', '-', 'wp-content'], {
                  user: 'www-data',
                  stdout: sink,
                }).then(() => {}),
            },
          ],
          async () => ({ tables: Number((await execIn(db, count.cmd, { user: count.user })).trim()) }),
        );
      }),
    list: (id) => ctx.backups.list(id),
    restore: (id, backupId) =>
      withLock(id, async () => {
        const backup = await ctx.backups.open(id, backupId);
        const db = await dbTarget(id);
        const app = await appTarget(id);
        const recreate = FLAVORS.mysql.recreate('wordpress', 'wordpress');
        await execIn(db, recreate.cmd, { user: recreate.user });
        const load = FLAVORS.mysql.load('wordpress', 'wordpress');
        await execIn(db, load.cmd, { user: load.user, stdin: backup.read('db.sql.gz') });
        // As www-data, inside the site's container: the files are only ever the site's own.
        await execIn(
          app,
          [
            'sh',
            '-ec',
            `cd ${WP_ROOT}/wp-content && find . -mindepth 1 -maxdepth 1 -exec rm -rf {} + && tar -xf - -C ${WP_ROOT}`,
          ],
          { user: 'www-data', stdin: backup.read('files.tar.gz') },
        );
        const count = FLAVORS.mysql.countTables('wordpress');
        const tables = Number((await execIn(db, count.cmd, { user: count.user })).trim());
        if (tables !== backup.manifest.check.tables) {
          throw new Error(
            `Restore of ${backupId} incomplete: ${tables} tables, the backup had ${backup.manifest.check.tables}`,
          );
        }
      }),
    delete: (id, backupId) => ctx.backups.delete(id, backupId),
  };
}
