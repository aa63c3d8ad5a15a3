import { Resolver } from 'node:dns/promises';

/** What a TXT lookup found: the records (chunks joined), none yet (NXDOMAIN/NODATA), or a failure. */
export type TxtAnswer =
  | { kind: 'found'; records: string[] }
  | { kind: 'none' }
  | { kind: 'failed'; reason: string };

export type TxtLookup = (name: string) => Promise<TxtAnswer>;

/** Answers that mean "no such record (yet)" rather than a broken lookup. */
const NOT_YET = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME']);

/** Per-try timeout and tries of the resolver; the whole lookup is also cut off after `totalMs`. */
export interface TxtLookupOptions {
  /** `host:port` entries as node:dns takes them ('127.0.0.1:5353', '[::1]:53'); absent: the system's. */
  servers?: readonly string[];
  tryTimeoutMs?: number;
  tries?: number;
  totalMs?: number;
}

/**
 * TXT lookups through node:dns's Resolver (c-ares, its own UDP/TCP queries: no system cache, so a record
 * just added is seen as soon as the authoritative server has it), with a configurable server list and a
 * hard time limit.
 */
export function createTxtLookup(options: TxtLookupOptions = {}): TxtLookup {
  const tryTimeoutMs = options.tryTimeoutMs ?? 2_000;
  const tries = options.tries ?? 2;
  const totalMs = options.totalMs ?? 5_000;
  const servers = options.servers && options.servers.length > 0 ? [...options.servers] : undefined;
  return async (name) => {
    const resolver = new Resolver({ timeout: tryTimeoutMs, tries });
    if (servers) resolver.setServers(servers);
    let timer: NodeJS.Timeout | undefined;
    const cutOff = new Promise<TxtAnswer>((resolve) => {
      timer = setTimeout(() => {
        resolver.cancel();
        resolve({ kind: 'failed', reason: `no answer within ${Math.round(totalMs / 1000)} s` });
      }, totalMs);
    });
    const lookup = resolver.resolveTxt(name).then(
      (records): TxtAnswer => ({ kind: 'found', records: records.map((chunks) => chunks.join('')) }),
      (error: NodeJS.ErrnoException): TxtAnswer => {
        const code = error.code ?? '';
        if (NOT_YET.has(code)) return { kind: 'none' };
        return {
          kind: 'failed',
          reason: code === 'ETIMEOUT' ? 'the DNS server did not answer' : code || error.message,
        };
      },
    );
    try {
      return await Promise.race([lookup, cutOff]);
    } finally {
      clearTimeout(timer);
    }
  };
}
