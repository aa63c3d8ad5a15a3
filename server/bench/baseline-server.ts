// The bench's yardstick: the same two reads as Berth's GET /api/auth/profile and GET /api/instances, on
// the same database, written the shortest honest way: Hono, pg and jose, no middleware, no query
// builder, no schemas. The ratio Berth / this says what the platform's layers cost per request.
import { createSecretKey } from 'node:crypto';
import { Hono } from 'hono';
import { jwtVerify } from 'jose';
import pg from 'pg';

// The user with the status of their affiliate profile, as Berth's profile answer carries it.
const USER =
  'select "users".*, (select "affiliates"."status" from "affiliates" where "affiliates"."user_id" = ' +
  '"users"."id") as "affiliate_status" from "users" where "users"."id" = $1';
const SUBSCRIPTION =
  'select "subscriptions".*, (select count(*) as "n" from "instances" where "instances"."user_id" = ' +
  '"subscriptions"."user_id" and "instances"."status" <> $1) as "used" from "subscriptions" where ' +
  '"subscriptions"."user_id" = $2';
const INSTANCES =
  'select * from "instances" where "user_id" = $1 order by "created_at" desc, "id" desc limit $2 offset $3';
const COUNT = 'select count(*) as "n" from "instances" where "user_id" = $1';

export function createBaselineApp(databaseUrl: string, jwtSecret: string, poolSize: number) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  pool.on('error', () => {});
  const key = createSecretKey(Buffer.from(jwtSecret, 'utf8'));
  const userOf = async (header: string | undefined) => {
    const { payload } = await jwtVerify(header?.slice('Bearer '.length) ?? '', key, {
      issuer: 'berth',
      audience: 'berth-api',
    });
    return String(payload.sub);
  };
  const app = new Hono()
    .get('/api/auth/profile', async (c) => {
      const id = await userOf(c.req.header('authorization'));
      const [user, subscription] = await Promise.all([
        pool.query(USER, [id]),
        pool.query(SUBSCRIPTION, ['deleting', id]),
      ]);
      const { password_hash: _, ...row } = user.rows[0];
      return c.json({ user: { ...row, subscription: subscription.rows[0] } });
    })
    .get('/api/instances', async (c) => {
      const id = await userOf(c.req.header('authorization'));
      const [rows, count] = await Promise.all([pool.query(INSTANCES, [id, 24, 0]), pool.query(COUNT, [id])]);
      const total = Number(count.rows[0].n);
      return c.json({
        instances: rows.rows,
        total,
        pages: Math.max(1, Math.ceil(total / 24)),
        page: 1,
        limit: 24,
      });
    });
  return { app, close: () => pool.end() };
}
