import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMigrationTestDatabase } from '../../test/test-db.ts';

/**
 * The migration that gives an instance's settings its type's shape, on a real database holding what was
 * stored before it: a WordPress site keeps its settings, n8n's WordPress-shaped ones become its owner
 * account, databases keep none; what backups of deleted instances kept is carried over the same way,
 * and going back down gives the old shapes again.
 */

const MIGRATION = '20261229T000001-instance-settings-by-type';
let test: Awaited<ReturnType<typeof createMigrationTestDatabase>>;

beforeAll(async () => {
  test = await createMigrationTestDatabase(MIGRATION);
});

const wordpressSite = { title: 'Shop', adminUser: 'ada', adminEmail: 'ada@example.com', phpVersion: '8.2' };
const n8nSite = { title: 'Flows', adminUser: 'Grace', adminEmail: 'grace@example.com', phpVersion: '' };
const kept = (site: object | null) =>
  JSON.stringify({
    name: 'Flows',
    region: 'us-east-1',
    memory: '1GB',
    cpu: '1',
    site,
    sealedKey: null,
    deletedAt: '2026-11-01T00:00:00.000Z',
  });

describe(MIGRATION, () => {
  it("stores each instance's settings in its type's shape, backups of deleted instances too, and goes back", async () => {
    const { db } = test;
    const { rows: users } = await sql<{ id: string }>`
      insert into users (email, username, password_hash, first_name, last_name, account_type)
      values ('a@example.com', 'alice', 'x', 'A', 'B', 'individual') returning id`.execute(db);
    const alice = users[0]?.id ?? '';
    const { rows: instances } = await sql<{ id: string }>`
      insert into instances (user_id, name, type, category, region, memory, cpu, status, site)
      values (${alice}, 'Shop', 'wordpress', 'application', 'us-east-1', '1GB', '1', 'running', ${JSON.stringify(wordpressSite)}),
             (${alice}, 'Flows', 'n8n', 'application', 'us-east-1', '1GB', '1', 'running', ${JSON.stringify(n8nSite)}),
             (${alice}, 'Orders', 'mysql', 'database', 'us-east-1', '1GB', '1', 'running', null)
      returning id`.execute(db);
    const [shop = '', flows = '', orders = ''] = instances.map((i) => i.id);
    await sql`
      insert into instance_backups (id, instance_id, user_id, instance_type, kind, name, status, location, parts, deleted_instance)
      values ('b-000000000001', ${flows}, ${alice}, 'n8n', 'manual', 'one', 'complete', 'local', '[]', ${kept(n8nSite)}),
             ('b-000000000002', ${shop}, ${alice}, 'wordpress', 'manual', 'two', 'complete', 'local', '[]', ${kept(wordpressSite)}),
             ('b-000000000003', ${orders}, ${alice}, 'mysql', 'manual', 'three', 'complete', 'local', '[]', ${kept(null)}),
             ('b-000000000004', ${orders}, ${alice}, 'mysql', 'manual', 'four', 'complete', 'local', '[]', null)`.execute(
      db,
    );

    expect(await test.migrate()).toEqual([MIGRATION]);

    const settings = await db.selectFrom('instances').select(['name', 'settings']).orderBy('name').execute();
    expect(settings).toEqual([
      { name: 'Flows', settings: { ownerEmail: 'grace@example.com', ownerFirstName: 'Grace' } },
      { name: 'Orders', settings: null },
      { name: 'Shop', settings: wordpressSite },
    ]);
    const backups = await db
      .selectFrom('instance_backups')
      .select(['id', 'deleted_instance'])
      .orderBy('id')
      .execute();
    expect(
      backups.map(
        (b) =>
          b.deleted_instance && { settings: b.deleted_instance.settings, site: 'site' in b.deleted_instance },
      ),
    ).toEqual([
      { settings: { ownerEmail: 'grace@example.com', ownerFirstName: 'Grace' }, site: false },
      { settings: wordpressSite, site: false },
      { settings: null, site: false },
      null,
    ]);
    expect(backups[0]?.deleted_instance).toMatchObject({ name: 'Flows', region: 'us-east-1', memory: '1GB' });

    // Down again: the WordPress-shaped `site` as it was (n8n's title is the instance's name).
    const { error } = await test.migrateDown();
    expect(error).toBeUndefined();
    const { rows: sites } = await sql<{ name: string; site: object | null }>`
      select name, site from instances order by name`.execute(db);
    expect(sites).toEqual([
      { name: 'Flows', site: n8nSite },
      { name: 'Orders', site: null },
      { name: 'Shop', site: wordpressSite },
    ]);
    const { rows: keptSites } = await sql<{ site: object | null }>`
      select deleted_instance->'site' as site from instance_backups order by id`.execute(db);
    expect(keptSites).toEqual([{ site: n8nSite }, { site: wordpressSite }, { site: null }, { site: null }]);
  });
});
