import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { createRouter } from '../../lib/create-router.ts';
import * as routes from './health.routes.ts';

export function createHealthRouter(db: Db, version: string) {
  return createRouter().openapi(routes.health, async (c) => {
    try {
      await sql`select 1`.execute(db);
      return c.json({ status: 'ok' as const, database: 'ok' as const, version }, 200);
    } catch {
      return c.json({ status: 'error' as const, database: 'error' as const, version }, 503);
    }
  });
}
