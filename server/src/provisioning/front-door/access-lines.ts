import type { RequestCounts } from '../usage.ts';
import { ACCESS_LOGGER_PREFIX } from './caddy-config.ts';

/**
 * The front door's access lines (caddy-config.ts: one JSON line per response, logged under the instance's
 * id) counted per instance, by status class and bytes sent: the requests of the usage samples, on every
 * driver. Tenants only choose what their visitors send; a line that does not parse is skipped.
 */

const emptyCounts = (): RequestCounts => ({
  status2xx: 0,
  status3xx: 0,
  status4xx: 0,
  status5xx: 0,
  bytesSent: 0,
});

/** Adds one access line to `counts`; false when it is not one. */
export function countAccessLine(line: string, counts: Map<string, RequestCounts>): boolean {
  let entry: { logger?: unknown; status?: unknown; size?: unknown };
  try {
    entry = JSON.parse(line) as typeof entry;
  } catch {
    return false;
  }
  const { logger, status, size } = entry;
  if (typeof logger !== 'string' || !logger.startsWith(ACCESS_LOGGER_PREFIX) || typeof status !== 'number')
    return false;
  const id = logger.slice(ACCESS_LOGGER_PREFIX.length);
  const found = counts.get(id) ?? emptyCounts();
  if (status < 300) found.status2xx += 1;
  else if (status < 400) found.status3xx += 1;
  else if (status < 500) found.status4xx += 1;
  else found.status5xx += 1;
  if (typeof size === 'number' && size > 0) found.bytesSent += size;
  counts.set(id, found);
  return true;
}
