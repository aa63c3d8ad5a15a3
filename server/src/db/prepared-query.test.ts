import type { KyselyPlugin } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { insertInstanceRows } from '../../test/instance-rows.ts';
import { createTestDatabase } from '../../test/test-db.ts';
import type { Db } from './database.ts';
import { preparedQuery } from './prepared-query.ts';

/** A query compiled once answers, for every set of arguments, what the same query built anew answers. */

let db: Db;
const users: string[] = [];
beforeAll(async () => {
  ({ db } = await createTestDatabase());
  for (const name of ['ann', 'bob']) {
    const row = await db
      .insertInto('users')
      .values({
        username: name,
        email: `${name}@example.com`,
        password_hash: 'x',
        first_name: name,
        last_name: 'Test',
        account_type: 'individual',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    users.push(row.id);
  }
  await insertInstanceRows(db, users[0] ?? '', 5);
  await insertInstanceRows(db, users[1] ?? '', 2);
  await db
    .updateTable('instances')
    .set({ status: 'deleting' })
    .where('user_id', '=', users[0] ?? '')
    .where('name', '=', 'db 0')
    .execute();
});

// A constant ('deleting') between the arguments, and arguments in limit and offset.
const page = preparedQuery((db, userId: string, limit: number, offset: number) =>
  db
    .selectFrom('instances')
    .select(['name', 'status'])
    .where('user_id', '=', userId)
    .where('status', '<>', 'deleting')
    .orderBy('name')
    .limit(limit)
    .offset(offset),
);
const built = (userId: string, limit: number, offset: number) =>
  db
    .selectFrom('instances')
    .select(['name', 'status'])
    .where('user_id', '=', userId)
    .where('status', '<>', 'deleting')
    .orderBy('name')
    .limit(limit)
    .offset(offset)
    .execute();

describe('preparedQuery', () => {
  it('answers as the query built anew, for each set of arguments, constants kept', async () => {
    const [ann = '', bob = ''] = users;
    for (const [userId, limit, offset] of [
      [ann, 10, 0],
      [ann, 2, 1],
      [bob, 10, 0],
      [ann, 1, 3],
      [bob, 5, 5],
    ] as const) {
      expect(await page(db, userId, limit, offset)).toEqual(await built(userId, limit, offset));
    }
    expect((await page(db, ann, 10, 0)).map((r) => r.name)).toEqual(['db 1', 'db 2', 'db 3', 'db 4']);
    expect(await page(db, bob, 10, 0)).toHaveLength(2);
  });

  it('runs inside a transaction, which sees its own writes', async () => {
    const [, bob = ''] = users;
    await db
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable('instances').set({ status: 'deleting' }).where('user_id', '=', bob).execute();
        expect(await page(trx, bob, 10, 0)).toEqual([]);
        throw new Error('roll back');
      })
      .catch(() => {});
    expect(await page(db, bob, 10, 0)).toHaveLength(2);
  });

  it("runs through Kysely's executor: a plugin's result transform applies", async () => {
    const [ann = ''] = users;
    const marking: KyselyPlugin = {
      transformQuery: ({ node }) => node,
      transformResult: async ({ result }) => ({
        ...result,
        rows: result.rows.map((r) => ({ ...r, seen: true })),
      }),
    };
    const rows = await page(db.withPlugin(marking), ann, 1, 0);
    expect(rows).toEqual([{ name: 'db 1', status: expect.any(String), seen: true }]);
  });

  it('refuses a query that does not use every argument as a value', async () => {
    const unused = preparedQuery((db, userId: string, _name: string) =>
      db.selectFrom('instances').select('name').where('user_id', '=', userId),
    );
    await expect(unused(db, users[0] ?? '', 'x')).rejects.toThrow('every argument must be used');
  });
});
