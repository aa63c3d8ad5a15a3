import type { BackupCapability, N8nSpec } from '../engine.ts';
import type { SwarmFrontDoors } from './front-door.ts';
import { SERVICE_UIDS } from './image-recipes.ts';
import { waitForN8n } from './n8n-web.ts';
import type { Region } from './region.ts';
import { instanceNames, scale, waitForRunning } from './services.ts';
import type { SwarmContext } from './swarm-context.ts';
import { dumpVolume, restoreVolume, type VolumeArchive } from './volume-archives.ts';
import type { WebState } from './web-instance.ts';

/**
 * Backups of an n8n instance on a swarm (n8n-engine.ts), as the local driver makes them: its whole data
 * folder (its SQLite database with workflows, credentials and executions; its config) as one tar.gz part,
 * written while n8n is stopped so that the database is consistent (its service scaled to 0 for the few
 * seconds it takes, then back). The encryption key its credentials are encrypted with is the platform's
 * (stored with the instance, a Docker secret on every deploy): a restore decrypts them again. The archive
 * is made and read by a helper container beside the volume, as n8n's user (volume-archives.ts).
 */

const DATA_PART = 'data.tar.gz';

export function n8nBackups(
  ctx: SwarmContext,
  doors: SwarmFrontDoors,
  requireState: (id: string) => Promise<WebState>,
): BackupCapability<N8nSpec> {
  const withLock = <T>(id: string, task: () => Promise<T>) => ctx.lock(`instance:${id}`, task);

  async function data(region: Region, state: WebState, id: string): Promise<VolumeArchive> {
    const node = await region.nodeById(state.nodeId);
    if (!node) throw new Error(`The server of ${id} is gone`);
    return {
      engine: region.nodeEngine(node),
      instanceId: id,
      volume: instanceNames(id).volume('data'),
      image: ctx.image('n8n'),
      user: `${SERVICE_UIDS.n8n}:${SERVICE_UIDS.n8n}`,
      member: '.',
      part: DATA_PART,
      maxBytes: ctx.options.disks.n8n * 1024 * 1024,
      // The editor's cache (made again at start) and scratch files are not worth keeping.
      exclude: ['./.cache', './tmp'],
      what: "The instance's data",
      stallMs: ctx.options.backupStallMs,
    };
  }

  /** Runs `work` with n8n stopped (its service at 0), and brings it back whatever happens. */
  async function stopped<T>(state: WebState, id: string, work: () => Promise<T>): Promise<T> {
    const names = instanceNames(id);
    await scale(state.region.manager, names.service, 0);
    try {
      return await work();
    } finally {
      await scale(state.region.manager, names.service, 1);
      await waitForRunning(state.region, names.service, { timeoutMs: 300_000 });
      await waitForN8n(doors, state.region, names.slug);
    }
  }

  return {
    dump: (spec, archive, progress) =>
      withLock(spec.id, async () => {
        const state = await requireState(spec.id);
        progress?.('Stopping n8n for a consistent copy');
        await stopped(state, spec.id, async () => {
          progress?.('Copying the data');
          await dumpVolume(await data(state.region, state, spec.id), archive);
        });
        return {};
      }),
    restore: (spec, archive, _facts, progress) =>
      withLock(spec.id, async () => {
        const state = await requireState(spec.id);
        await stopped(state, spec.id, async () => {
          progress?.('Restoring the data');
          await restoreVolume(await data(state.region, state, spec.id), archive);
          progress?.('Starting n8n');
        });
      }),
  };
}
