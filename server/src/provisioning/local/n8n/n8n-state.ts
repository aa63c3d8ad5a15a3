import { existsSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { tenantNames } from '../../tenant-names.ts';
import { readState, writeState } from '../host/host.ts';

/**
 * What the local driver knows of an n8n instance: one JSON file per instance (root, mode 600) under
 * `<root>/n8n-state/`, outside anything the instance can reach. The encryption key is kept here (as
 * well as encrypted in the platform database, the source of truth) so the driver can restart the
 * instance after a reboot or crash without the platform; n8n itself also writes it to
 * `/data/.n8n/config` in the instance's folder, which backups archive.
 */
const N8nStateSchema = z.object({
  id: z.string(),
  /** Host loopback port pasta forwards to n8n (the same port inside its namespace). */
  port: z.number().int(),
  ownerEmail: z.string(),
  encryptionKey: z.string(),
  /** Heap limit of n8n's main process (MiB). */
  memoryMb: z.number().int(),
  /** The memory and vCPUs it was sold (its control group's limits); absent before they were. */
  resources: z.object({ memoryMb: z.number().int().positive(), cpus: z.number().positive() }).optional(),
  domain: z.string().nullable(),
  suspended: z.boolean(),
  /** Set once the owner account exists (POST /rest/owner/setup answered). */
  ownerReady: z.boolean(),
  createdAt: z.string(),
});
export type N8nState = z.infer<typeof N8nStateSchema>;

export interface N8nNames {
  id: string;
  key: string;
  /** First label of the temporary URL. */
  slug: string;
  unixUser: string;
}

export function n8nNames(id: string): N8nNames {
  tenantNames(id); // validates the id: [a-z0-9-]{1,50}
  const key = id.replaceAll('-', '').slice(0, 12);
  return { id, key, slug: key, unixUser: `n8n_${key}` };
}

export function n8nPaths(root: string, id: string) {
  const { key } = n8nNames(id);
  return {
    /** Mount point of the instance's disk (n8n-disks.ts); its root folder is root's (711). */
    mountDir: path.join(root, 'n8n', id),
    /** The instance's data folder on its disk (its user's, 700): /data in its sandbox. */
    dataDir: path.join(root, 'n8n', id, 'data'),
    /** Its temporary folder on its disk (its user's, 700): /tmp in its sandbox. */
    tmpDir: path.join(root, 'n8n', id, 'tmp'),
    etcDir: path.join(root, 'sandbox', `n8n-${key}`),
    stateFile: path.join(root, 'n8n-state', `${id}.json`),
    pidFile: path.join(root, 'run', `n8n-${key}.pid`),
    logFile: path.join(root, 'logs', `n8n-${key}.log`),
  };
}

export const readN8nState = (root: string, id: string): Promise<N8nState | undefined> =>
  readState(n8nPaths(root, id).stateFile, N8nStateSchema);

export async function writeN8nState(root: string, state: N8nState): Promise<void> {
  const file = n8nPaths(root, state.id).stateFile;
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeState(file, state);
}

export async function removeN8nState(root: string, id: string): Promise<void> {
  await rm(n8nPaths(root, id).stateFile, { force: true });
}

export async function listN8nStates(root: string): Promise<N8nState[]> {
  const dir = path.join(root, 'n8n-state');
  if (!existsSync(dir)) return [];
  const ids = (await readdir(dir)).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -'.json'.length));
  const states = await Promise.all(ids.map((id) => readN8nState(root, id)));
  return states.filter((state): state is N8nState => state !== undefined);
}
