import type { Pool } from 'mysql2/promise';
import type { TenantNames } from '../../tenant-names.ts';
import { killConnection, killSessions, sessionsOf, WRITE_PRIVILEGES } from './mariadb-tenants.ts';

/** After the writes come back, how long the connections busy then are waited for, to close them idle. */
const IDLE_WAIT_MS = 30_000;

/**
 * Taking a MySQL tenant's writes away at its limit and giving them back (mariadb-quota.ts): a grant
 * changes only for new logins, so its connections are closed, at once when blocked, once idle when
 * unblocked. `isRunning` says whether the guard still runs (the idle wait ends when it stops).
 */
export function tenantWrites({
  admin,
  log,
  isRunning,
}: {
  admin: () => Pool;
  log: (line: string) => void;
  isRunning: () => boolean;
}) {
  async function block(names: TenantNames): Promise<void> {
    const pool = admin();
    const db = pool.escapeId(names.database);
    // Refused first (a new login gets the reduced set), then every open connection ends: what it runs
    // rolls back, and it can no longer use the privileges it read at login.
    await pool.query(`REVOKE ${WRITE_PRIVILEGES} ON ${db}.* FROM ?@'%'`, [names.user]);
    await closeSessions(names);
  }

  /** Closes the tenant's connections; one that cannot be closed is logged (the next check tries again). */
  async function closeSessions(names: TenantNames): Promise<void> {
    await killSessions(admin(), names.user).catch((error: Error) =>
      log(`mariadb: the sessions of ${names.database} could not all be closed: ${error.message}`),
    );
  }

  async function unblock(names: TenantNames): Promise<void> {
    const pool = admin();
    const db = pool.escapeId(names.database);
    await pool.query(`GRANT ${WRITE_PRIVILEGES} ON ${db}.* TO ?@'%'`, [names.user]);
    closeWhenIdle(names).catch((error: Error) =>
      log(`mariadb: the sessions of ${names.database} could not all be closed: ${error.message}`),
    );
  }

  /**
   * The tenant's connections opened before its writes came back still hold the reduced privileges, so
   * each is closed, but only once idle: never in the middle of a statement (such as the TRUNCATE that
   * made the room). Watched in the background every 200 ms, for IDLE_WAIT_MS at most.
   */
  async function closeWhenIdle(names: TenantNames): Promise<void> {
    const pool = admin();
    const waiting = new Set((await sessionsOf(pool, names.user)).map((session) => session.id));
    for (const until = Date.now() + IDLE_WAIT_MS; waiting.size > 0 && isRunning() && Date.now() < until; ) {
      const now = new Map(
        (await sessionsOf(pool, names.user)).map((session) => [session.id, session.command]),
      );
      for (const id of waiting) {
        const command = now.get(id);
        if (command === 'Sleep') await killConnection(pool, id);
        if (command === undefined || command === 'Sleep') waiting.delete(id);
      }
      if (waiting.size > 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  return { block, unblock };
}
