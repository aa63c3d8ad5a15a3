import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { z } from 'zod';

// The records of database disks (database-disks.ts): `<database>.json` names a tenant's disk and its
// limit; `spare.json` the warm spare that is ready.

const DiskRecordSchema = z.object({
  limitMb: z.number().int().positive(),
  disk: z.string().regex(/^[a-f0-9]{12}$/),
  /** Set while the engine has not adopted the spare this disk was (its objects named `spare_<disk>`). */
  spare: z.string().optional(),
  /** Until when (ms since the epoch) the tenant's writes stay refused after it filled its disk. */
  heldUntil: z.number().optional(),
});
export type DiskRecord = z.infer<typeof DiskRecordSchema>;

export const SPARE_RECORD = 'spare.json';
export const newDiskId = () => randomBytes(6).toString('hex');
export const spareName = (disk: string) => `spare_${disk}`;

export async function writeRecord(file: string, record: DiskRecord): Promise<void> {
  await writeFile(file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
}

export async function readRecord(file: string): Promise<DiskRecord | undefined> {
  const raw = await readFile(file, 'utf8').catch(() => undefined);
  return raw === undefined ? undefined : DiskRecordSchema.parse(JSON.parse(raw));
}
