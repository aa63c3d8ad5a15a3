import { existsSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { readState, writeState } from '../host/host.ts';
import { sitePaths } from './site-names.ts';

/**
 * What the local driver knows of a WordPress site, one JSON file per site (root, mode 600) under
 * `<root>/site-state/`. The front door's configuration and the SFTP logins are rebuilt from these files;
 * the platform database stays the source of truth for what customers asked for.
 */
const SiteStateSchema = z.object({
  id: z.string(),
  type: z.literal('wordpress'),
  phpVersion: z.string(),
  title: z.string(),
  adminUser: z.string(),
  adminEmail: z.string(),
  /** The tenant database password (also in wp-config.php): backups, restores and domain changes use it. */
  databasePassword: z.string(),
  /** scrypt of the SFTP password: `<salt hex>:<hash hex>`. */
  sftpPasswordHash: z.string(),
  /** The eight WordPress keys and salts, kept across deploys so sessions survive a redeploy. */
  salts: z.record(z.string(), z.string()),
  domain: z.string().nullable(),
  suspended: z.boolean(),
  /** Set once wp_install has run. */
  installed: z.boolean(),
  /** The memory and vCPUs it was sold (its control group's limits); absent before they were. */
  resources: z.object({ memoryMb: z.number().int().positive(), cpus: z.number().positive() }).optional(),
  createdAt: z.string(),
});
export type SiteState = z.infer<typeof SiteStateSchema>;

export const readSiteState = (root: string, id: string): Promise<SiteState | undefined> =>
  readState(sitePaths(root, id).stateFile, SiteStateSchema);

export async function writeSiteState(root: string, state: SiteState): Promise<void> {
  const file = sitePaths(root, state.id).stateFile;
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeState(file, state);
}

export async function removeSiteState(root: string, id: string): Promise<void> {
  await rm(sitePaths(root, id).stateFile, { force: true });
}

export async function listSiteStates(root: string): Promise<SiteState[]> {
  const dir = path.join(root, 'site-state');
  if (!existsSync(dir)) return [];
  const ids = (await readdir(dir)).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -'.json'.length));
  const states = await Promise.all(ids.map((id) => readSiteState(root, id)));
  return states.filter((state): state is SiteState => state !== undefined);
}
