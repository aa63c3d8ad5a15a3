import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMigrationTestDatabase } from '../../test/test-db.ts';
import type { Db } from './database.ts';

/**
 * The migration that lets backups outlive their instance, on a real database that holds backups made
 * before it: every existing backup stays, now naming its owner and type, and deleting an instance no
 * longer takes its backups along.
 */

const MIGRATION = '20261226T000001-keep-backups-of-deleted-instances';
let db: Db;
let test: Awaited<ReturnType<typeof createMigrationTestDatabase>>;

beforeAll(async () => {
  test = await createMigrationTestDatabase(MIGRATION);
  db = test.db;
});

describe(MIGRATION, () => {
  it('keeps every existing backup (and its download uses), naming its owner and type', async () => {
    const { rows: users } = await sql<{ id: string }>`
      insert into users (email, username, password_hash, first_name, last_name, account_type)
      values ('a@example.com', 'alice', 'x', 'A', 'B', 'individual'),
             ('b@example.com', 'bob', 'x', 'B', 'C', 'individual')
      returning id`.execute(db);
    const [alice = '', bob = ''] = users.map((u) => u.id);
    const { rows: instances } = await sql<{ id: string }>`
      insert into instances (user_id, name, type, category, region, memory, cpu, status)
      values (${alice}, 'shop', 'mysql', 'database', 'us-east-1', '1GB', '1', 'running'),
             (${bob}, 'blog', 'wordpress', 'application', 'us-east-1', '1GB', '1', 'running')
      returning id`.execute(db);
    const [shop = '', blog = ''] = instances.map((i) => i.id);
    await sql`
      insert into instance_backups (id, instance_id, kind, name, status, location, parts, completed_at)
      values ('b-000000000001', ${shop}, 'manual', 'one', 'complete', 'local',
              '[{"name":"dump.sql.gz","size":1,"sha256":"x","plainSize":1}]', now()),
             ('b-000000000002', ${shop}, 'scheduled', 'two', 'failed', 's3', '[]', null),
             ('b-000000000003', ${blog}, 'manual', 'three', 'complete', 'local', '[]', now())`.execute(db);
    await sql`insert into backup_download_uses (link_id, backup_id, expires_at)
              values ('link-1', 'b-000000000001', now() + interval '5 minutes')`.execute(db);

    expect(await test.migrate()).toEqual([MIGRATION]);

    const kept = await db
      .selectFrom('instance_backups')
      .select([
        'id',
        'instance_id',
        'user_id',
        'instance_type',
        'name',
        'status',
        'parts',
        'deleted_instance',
      ])
      .orderBy('id')
      .execute();
    expect(kept).toEqual([
      {
        id: 'b-000000000001',
        instance_id: shop,
        user_id: alice,
        instance_type: 'mysql',
        name: 'one',
        status: 'complete',
        parts: [{ name: 'dump.sql.gz', size: 1, sha256: 'x', plainSize: 1 }],
        deleted_instance: null,
      },
      {
        id: 'b-000000000002',
        instance_id: shop,
        user_id: alice,
        instance_type: 'mysql',
        name: 'two',
        status: 'failed',
        parts: [],
        deleted_instance: null,
      },
      {
        id: 'b-000000000003',
        instance_id: blog,
        user_id: bob,
        instance_type: 'wordpress',
        name: 'three',
        status: 'complete',
        parts: [],
        deleted_instance: null,
      },
    ]);
    expect(await db.selectFrom('backup_download_uses').select('link_id').execute()).toEqual([
      { link_id: 'link-1' },
    ]);

    // The instance's row goes; its backups stay (the delete job records what a restore needs).
    await db.deleteFrom('instances').where('id', '=', shop).execute();
    expect(
      await db
        .selectFrom('instance_backups')
        .select('id')
        .where('instance_id', '=', shop)
        .orderBy('id')
        .execute(),
    ).toEqual([{ id: 'b-000000000001' }, { id: 'b-000000000002' }]);
    // An account's removal still takes its backups' records.
    await db.deleteFrom('users').where('id', '=', bob).execute();
    expect(await db.selectFrom('instance_backups').select('id').where('user_id', '=', bob).execute()).toEqual(
      [],
    );
  });
});
