import type { BackupCapability, N8nSpec } from '../../engine.ts';
import * as n8nBackups from './n8n-backups.ts';
import { type N8nContext, stillRunning } from './n8n-context.ts';

/**
 * An instance's backups (n8n-backups.ts writes and reads the archive), under the instance's lock and
 * none while it is suspended. SQLite is copied consistently only while n8n is stopped, so both stop
 * the instance for the copy and start it again afterwards, whatever happened.
 */
export function n8nInstanceBackups(
  ctx: Pick<N8nContext, 'withInstance' | 'requireState' | 'sandboxOf' | 'stopProcess' | 'startServing'>,
): BackupCapability<N8nSpec> {
  const { withInstance, requireState } = ctx;
  return {
    dump({ id }, archive, progress) {
      return withInstance(id, async () => {
        const state = await requireState(id);
        stillRunning(state);
        // SQLite is copied consistently only while n8n is stopped (a few seconds).
        progress?.('Stopping n8n for a consistent copy');
        await ctx.stopProcess(id);
        try {
          progress?.('Copying the data');
          await n8nBackups.dumpN8nData(ctx.sandboxOf(id), archive);
          return {};
        } finally {
          await ctx.startServing(state);
        }
      });
    },

    restore({ id }, archive, _facts, progress) {
      return withInstance(id, async () => {
        const state = await requireState(id);
        stillRunning(state);
        await ctx.stopProcess(id);
        try {
          progress?.('Restoring the data');
          await n8nBackups.restoreN8nData(ctx.sandboxOf(id), archive);
        } finally {
          progress?.('Starting n8n');
          await ctx.startServing(state);
        }
      });
    },
  };
}
