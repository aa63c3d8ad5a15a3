import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { DiskPool } from '../host/tenant-disks.ts';
import {
  type DiskRecord,
  readRecord,
  SPARE_RECORD,
  spareName,
  writeRecord,
} from './database-disk-records.ts';

/** What the engine does with a warm spare: prepare its objects there, rename them for a tenant, drop them. */
export interface SpareSteps {
  /** Makes the engine's objects named `spare` on the spare disk, whose data folder is `dataDir`. */
  prepare(spare: string, dataDir: string): Promise<void>;
  /** Renames them for `database` (idempotent: a retried deploy runs it again). */
  adopt(spare: string, database: string): Promise<void>;
  /** Drops them (a spare left over from a run that stopped). */
  discard(spare: string): Promise<void>;
}

/** What the warm spare needs of the disks (database-disks.ts). */
interface SpareContext {
  engine: string;
  /** The folder of the disks' images and records. */
  dir: string;
  pool: DiskPool;
  diskPoint(disk: string): string;
  /** Limit of a tenant whose deploy names none, MiB: what the spare is made for. */
  defaultLimitMb: number;
  /** A new disk for `limitMb`, mounted and laid out; the reserve may refuse it. */
  newDisk(limitMb: number): Promise<DiskRecord>;
  log: (line: string) => void;
}

/**
 * The warm spare of database disks: a disk made before its tenant is known, mounted, laid out and
 * prepared by the engine (`steps`), so that a deploy only renames what is there. One at a time, made in
 * the background; a disk no record names is discarded at start.
 */
export function warmSpare({ engine, dir, pool, diskPoint, defaultLimitMb, newDisk, log }: SpareContext) {
  let steps: SpareSteps | undefined;
  /** The warm spare: ready (its record written), or being made. */
  let spare: DiskRecord | undefined;
  let refilling: Promise<void> | undefined;
  let stopped = true;

  /** Makes the next warm spare in the background (one at a time; a refusal of the reserve is logged). */
  function refill(): void {
    if (refilling || stopped || spare) return;
    refilling = (async () => {
      const record = await newDisk(defaultLimitMb);
      const name = spareName(record.disk);
      await steps?.prepare(name, path.join(diskPoint(record.disk), 'data'));
      const ready = { ...record, spare: name };
      await writeRecord(path.join(dir, SPARE_RECORD), ready);
      if (stopped) return;
      spare = ready;
    })()
      .catch((error: Error) => log(`${engine}: spare disk not made: ${error.message}`))
      .finally(() => {
        refilling = undefined;
      });
  }

  return {
    refill,

    /** Keeps the spare on record (unless a tenant's disk or made for another limit), discards other disks. */
    async start(engineSteps: SpareSteps | undefined, recorded: Set<string>) {
      steps = engineSteps;
      stopped = false;
      const kept = await readRecord(path.join(dir, SPARE_RECORD));
      spare = kept && !recorded.has(kept.disk) && kept.limitMb === defaultLimitMb ? kept : undefined;
      if (!spare) await rm(path.join(dir, SPARE_RECORD), { force: true });
      for (const disk of await pool.list()) {
        if (recorded.has(disk) || disk === spare?.disk) continue;
        await steps?.discard(spareName(disk));
        await pool.remove(disk, diskPoint(disk));
      }
      refill();
    },

    async stop() {
      stopped = true;
      await refilling;
    },

    /** The spare when it is ready and made for `limitMb` (no longer the spare then), else undefined. */
    async take(limitMb: number): Promise<DiskRecord | undefined> {
      // A spare being made is further along than a disk this deploy would start now.
      if (!spare && refilling && limitMb === defaultLimitMb) await refilling;
      const taken = spare?.limitMb === limitMb ? spare : undefined;
      if (taken) spare = undefined;
      return taken;
    },

    /** Forgets the spare's record once its tenant's record is written. */
    dropRecord: () => rm(path.join(dir, SPARE_RECORD), { force: true }),

    /** Renames the engine's objects of the spare a tenant took for its database. */
    adopt: async (spareObjects: string, database: string) => steps?.adopt(spareObjects, database),
  };
}
