import { type Kysely, sql } from 'kysely';

// Frozen in time: imports nothing from src.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema of their own moment
export async function up(db: Kysely<any>): Promise<void> {
  // Each ticket records the plan its sender had ('free' for a trial or a lapsed plan, 'starter', 'pro')
  // and when support promised to answer it: 4 hours on Pro, 24 hours otherwise (the pricing page's
  // promise at the time of this migration).
  await db.schema
    .alterTable('help_tickets')
    .addColumn('plan', 'text', (c) =>
      c.notNull().defaultTo('free').check(sql`plan in ('free', 'starter', 'pro')`),
    )
    .addColumn('due_at', 'timestamptz')
    .execute();
  // Tickets sent before: the plan their sender has now (a running paid plan), due from when they came.
  await sql`
    update help_tickets t
       set plan = case when s.plan in ('starter', 'pro') and s.status = 'active' then s.plan else 'free' end
      from subscriptions s
     where s.user_id = t.user_id`.execute(db);
  await sql`
    update help_tickets
       set due_at = created_at + (case when plan = 'pro' then 4 else 24 end) * interval '1 hour'`.execute(db);
  await db.schema
    .alterTable('help_tickets')
    .alterColumn('due_at', (c) => c.setNotNull())
    .execute();
  // The admin's default order: open tickets by due time.
  await sql`create index help_tickets_open_due_at_idx on help_tickets (due_at) where status = 'open'`.execute(
    db,
  );
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index help_tickets_open_due_at_idx`.execute(db);
  await db.schema.alterTable('help_tickets').dropColumn('due_at').dropColumn('plan').execute();
}
