import { type Kysely, sql } from 'kysely';

// Frozen in time: imports nothing from src.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema of their own moment
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('instances')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('type', 'text', (c) =>
      c.notNull().check(sql`type in ('mysql', 'postgresql', 'mongodb', 'wordpress', 'n8n')`),
    )
    .addColumn('category', 'text', (c) => c.notNull().check(sql`category in ('application', 'database')`))
    .addColumn('region', 'text', (c) => c.notNull())
    .addColumn('memory', 'text', (c) => c.notNull())
    .addColumn('cpu', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('deploying', 'running', 'suspended', 'error', 'deleting')`),
    )
    .addColumn('status_message', 'text')
    .addColumn('suspended', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('deployed_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index instances_user_id_created_at_idx on instances (user_id, created_at desc, id desc)`.execute(
    db,
  );

  await db.schema
    .createTable('instance_credentials')
    .addColumn('instance_id', 'uuid', (c) => c.primaryKey().references('instances.id').onDelete('cascade'))
    // Encrypted (AES-256-GCM, "v1.<iv>.<tag>.<ciphertext>"): never plain text.
    .addColumn('secret', 'text', (c) => c.notNull().check(sql`secret like 'v1.%'`))
    .addColumn('pending_password', 'text', (c) => c.check(sql`pending_password like 'v1.%'`))
    .addColumn('password_error', 'text')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('instance_credentials').execute();
  await db.schema.dropTable('instances').execute();
}
