import { randomBytes } from 'node:crypto';
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { privateDir } from '../../lib/private-dir.ts';

/**
 * The help desk's image files on disk: `<BERTH_DATA_DIR>/help-uploads/<32 hex>.<ext>`. Names are random
 * and checked against FILE_NAME before any path is built, so nothing a client sends reaches the disk.
 * The folder is the server's alone (700, files 600): attachments are served through the API, which
 * checks who may see them.
 */
export const FILE_NAME = /^[a-f0-9]{32}\.(png|jpg|gif|webp)$/;
/** How attachments are named in the API (shown through the /api prefix: GET /api/uploads/help/…). */
export const URL_PREFIX = '/uploads/help/';

export function createHelpFiles(dir: string) {
  const full = (name: string) => {
    if (!FILE_NAME.test(name)) throw new Error(`not a help upload file name: ${name}`);
    return path.join(dir, name);
  };
  return {
    /** Writes the bytes under a new random name with the extension; answers the name. */
    async write(bytes: Uint8Array, ext: string): Promise<string> {
      const name = `${randomBytes(16).toString('hex')}.${ext}`;
      await privateDir(dir);
      await writeFile(full(name), bytes, { flag: 'wx', mode: 0o600 });
      return name;
    },
    async read(name: string): Promise<Uint8Array<ArrayBuffer> | undefined> {
      try {
        return new Uint8Array(await readFile(full(name)));
      } catch {
        return undefined;
      }
    },
    async remove(names: readonly string[]): Promise<void> {
      await Promise.all(names.filter((n) => FILE_NAME.test(n)).map((n) => rm(full(n), { force: true })));
    },
    /** Our file names on disk last modified before `before` (for the orphan sweep). */
    async listOlderThan(before: Date): Promise<string[]> {
      let names: string[];
      try {
        names = (await readdir(dir)).filter((n) => FILE_NAME.test(n));
      } catch {
        return [];
      }
      const old: string[] = [];
      for (const name of names) {
        const info = await stat(full(name)).catch(() => undefined);
        if (info && info.mtime < before) old.push(name);
      }
      return old;
    },
  };
}

export type HelpFiles = ReturnType<typeof createHelpFiles>;

/** The file name behind an attachment URL (`/uploads/help/x.png`, also with the `/api` prefix). */
export function fileNameOf(url: string): string | undefined {
  const rest = url.startsWith(`/api${URL_PREFIX}`)
    ? url.slice(`/api${URL_PREFIX}`.length)
    : url.startsWith(URL_PREFIX)
      ? url.slice(URL_PREFIX.length)
      : '';
  return FILE_NAME.test(rest) ? rest : undefined;
}
