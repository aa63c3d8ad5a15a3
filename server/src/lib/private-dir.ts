import { chmod, mkdir } from 'node:fs/promises';

/**
 * Makes `dir` (and its parents) if missing and leaves it readable by the server's user alone (700),
 * also when an earlier version made it open: what is in it (mail with reset links, customers'
 * attachments) is for the server, not for other users or tenants of the host.
 */
export async function privateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
}
