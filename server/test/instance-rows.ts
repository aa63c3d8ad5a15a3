import type { Db } from '../src/db/database.ts';

/**
 * `n` running MySQL instance rows written straight into the platform database (no driver, nothing
 * deployed): enough for the plan rules, which only count a user's instances.
 */
export async function insertInstanceRows(db: Db, userId: string, n: number): Promise<void> {
  await db
    .insertInto('instances')
    .values(
      Array.from({ length: n }, (_, i) => ({
        user_id: userId,
        name: `db ${i}`,
        type: 'mysql' as const,
        category: 'database' as const,
        region: 'local',
        memory: '256 MB',
        cpu: '0.25',
        status: 'running' as const,
      })),
    )
    .execute();
}
