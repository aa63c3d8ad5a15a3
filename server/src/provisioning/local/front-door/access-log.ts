import { constants } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { countAccessLine } from '../../front-door/access-lines.ts';
import type { RequestCounts } from '../../usage.ts';

/**
 * Counts what the front door answered for each instance, from Caddy's access log (caddy-config.ts: one
 * JSON line per response, logged under the instance's id). Each read() takes the lines added since the
 * previous one:
 *
 * - the file is kept open between reads, so when Caddy rolls it (renames it and starts a new one) the
 *   rest of the old file is still read through the open handle before the new file is taken from its
 *   start;
 * - the first file seen is read from its end (what an earlier server process counted is not counted
 *   again); a file that appears later, or replaces it, from its start;
 * - at most `maxBytes` per read (the rest waits for the next one), and a line cut by the end of what
 *   was written waits for its end.
 *
 * The file lies in the front door's own folder (Caddy's user, not a tenant's) and is opened without
 * following a link. Tenants only choose what their visitors send; a line that does not parse is skipped.
 */
export interface AccessLogReader {
  /** Responses and bytes per instance id since the previous read. */
  read(): Promise<Map<string, RequestCounts>>;
  close(): Promise<void>;
}

export function accessLogReader(file: string, maxBytes = 64 * 1024 * 1024): AccessLogReader {
  let handle: FileHandle | undefined;
  let inode = 0;
  let offset = 0;
  let partial = '';
  let firstRead = true;

  async function openAt(fromEnd: boolean): Promise<boolean> {
    try {
      handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch {
      handle = undefined;
      return false;
    }
    const info = await handle.stat();
    inode = info.ino;
    offset = fromEnd ? info.size : 0;
    partial = '';
    return true;
  }

  /** The new text of the open file from `offset`, up to `budget` bytes. */
  async function drain(budget: number): Promise<string> {
    if (!handle) return '';
    const chunks: Buffer[] = [];
    let total = 0;
    while (total < budget) {
      const buffer = Buffer.alloc(Math.min(1024 * 1024, budget - total));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      offset += bytesRead;
      total += bytesRead;
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  function count(text: string, counts: Map<string, RequestCounts>, final: boolean): void {
    const lines = (partial + text).split('\n');
    partial = final ? '' : (lines.pop() ?? '');
    for (const line of lines) if (line) countAccessLine(line, counts);
  }

  return {
    async read() {
      const counts = new Map<string, RequestCounts>();
      const fromEnd = firstRead;
      firstRead = false;
      if (!handle && !(await openAt(fromEnd))) return counts;
      let budget = maxBytes;
      const text = await drain(budget);
      budget -= Buffer.byteLength(text);
      // Rolled (another file under the name now) or truncated: the old one is read to its end first.
      const now = await stat(file).catch(() => undefined);
      const rolled = now !== undefined && now.ino !== inode;
      const truncated = now !== undefined && !rolled && now.size < offset;
      if (rolled && budget > 0) {
        count(text + (await drain(budget)), counts, true);
        await handle?.close();
        await openAt(false);
        count(await drain(budget), counts, false);
      } else {
        count(text, counts, false);
        if (truncated) {
          offset = 0;
          partial = '';
        }
      }
      return counts;
    },
    /** Closes the file; a read after it starts again at the end (as a new server process would). */
    async close() {
      await handle?.close();
      handle = undefined;
      firstRead = true;
    },
  };
}
