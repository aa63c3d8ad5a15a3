import { sql, type Transaction } from 'kysely';
import type { Database, DbOrTx } from '../../db/database.ts';
import { preparedQuery } from '../../db/prepared-query.ts';
import type {
  InstanceCredentialsRow,
  InstanceRow,
  InstanceRowUpdate,
  InstanceStatus,
  NewInstanceRow,
} from '../../db/tables/instances.ts';

export async function insertInstance(db: DbOrTx, row: NewInstanceRow): Promise<InstanceRow> {
  return db.insertInto('instances').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function insertCredentials(db: DbOrTx, instanceId: string, secret: string): Promise<void> {
  await db.insertInto('instance_credentials').values({ instance_id: instanceId, secret }).execute();
}

/** One of the user's instances (undefined for another user's, too). */
export async function findInstance(db: DbOrTx, userId: string, id: string): Promise<InstanceRow | undefined> {
  return db
    .selectFrom('instances')
    .selectAll()
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** An instance by id alone: for jobs, which act for the platform. */
export async function findInstanceById(db: DbOrTx, id: string): Promise<InstanceRow | undefined> {
  return db.selectFrom('instances').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The instances (any user's) whose custom domain is `domain`, verified or attached: its holders. */
export async function findDomainHolders(db: DbOrTx, domain: string): Promise<InstanceRow[]> {
  return db
    .selectFrom('instances')
    .selectAll()
    .where('custom_domain', '=', domain)
    .where('domain_status', 'in', ['verified', 'attached'])
    .execute();
}

/** The verification token the user already has for `domain` on one of their instances, if any. */
export async function findDomainToken(
  db: DbOrTx,
  userId: string,
  domain: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('instances')
    .select('domain_token')
    .where('user_id', '=', userId)
    .where('custom_domain', '=', domain)
    .where('domain_token', 'is not', null)
    .orderBy('domain_added_at')
    .limit(1)
    .executeTakeFirst();
  return row?.domain_token ?? undefined;
}

/**
 * Domains the background check should look at now, oldest check first: pending ones on a schedule
 * that slows down with their age (every minute in the first hour, every 10 minutes in the first day,
 * hourly after that), and verified ones not attached yet (every minute).
 */
export async function findDomainsDue(db: DbOrTx, limit: number): Promise<InstanceRow[]> {
  return db
    .selectFrom('instances')
    .selectAll()
    .where('status', '<>', 'deleting')
    .where((eb) =>
      eb.or([
        eb.and([
          eb('domain_status', '=', 'verified'),
          eb.or([
            eb('domain_checked_at', 'is', null),
            eb('domain_checked_at', '<', sql<Date>`now() - interval '1 minute'`),
          ]),
        ]),
        eb.and([
          eb('domain_status', '=', 'pending'),
          eb.or([
            eb('domain_checked_at', 'is', null),
            eb(
              'domain_checked_at',
              '<',
              sql<Date>`now() - case
                when domain_added_at > now() - interval '1 hour' then interval '1 minute'
                when domain_added_at > now() - interval '1 day' then interval '10 minutes'
                else interval '1 hour' end`,
            ),
          ]),
        ]),
      ]),
    )
    .orderBy(sql`domain_checked_at nulls first`)
    .limit(limit)
    .execute();
}

/**
 * Sets the fields of a custom domain unless the row's domain changed meanwhile or it is being deleted
 * (answers undefined then); 'taken' when making it verified or attached would give two instances the
 * same one (run it outside a transaction, or as its last statement).
 */
export async function updateDomainOf(
  db: DbOrTx,
  id: string,
  domain: string,
  patch: InstanceRowUpdate,
): Promise<InstanceRow | 'taken' | undefined> {
  try {
    return await db
      .updateTable('instances')
      .set({ ...patch, updated_at: sql<Date>`now()` })
      .where('id', '=', id)
      .where('custom_domain', '=', domain)
      .where('status', '<>', 'deleting')
      .returningAll()
      .executeTakeFirst();
  } catch (error) {
    if ((error as { code?: string }).code === '23505') return 'taken';
    throw error;
  }
}

/** Locks the user's instance row until the transaction ends. */
export async function lockInstanceForUpdate(
  trx: Transaction<Database>,
  userId: string,
  id: string,
): Promise<InstanceRow | undefined> {
  return trx
    .selectFrom('instances')
    .selectAll()
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A page of the user's instances, newest first, whose name contains `search` (any case). */
// The list without a search, on every dashboard load: built and compiled once (db/prepared-query.ts).
const instancesPage = preparedQuery((db, userId: string, limit: number, offset: number) =>
  db
    .selectFrom('instances')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset),
);
const instancesCount = preparedQuery((db, userId: string) =>
  db
    .selectFrom('instances')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId),
);

export async function findInstancesPage(
  db: DbOrTx,
  userId: string,
  options: { search: string; limit: number; offset: number },
): Promise<{ rows: InstanceRow[]; total: number }> {
  if (!options.search) {
    const [rows, count] = await Promise.all([
      instancesPage(db, userId, options.limit, options.offset),
      instancesCount(db, userId),
    ]);
    return { rows, total: Number(count[0]?.n ?? 0) };
  }
  const query = db
    .selectFrom('instances')
    .where('user_id', '=', userId)
    .where('name', 'ilike', `%${escapeLike(options.search)}%`);
  const [rows, count] = await Promise.all([
    query
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(options.limit)
      .offset(options.offset)
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** Instances that count against the plan: all but those being deleted. */
export async function countActiveInstances(db: DbOrTx, userId: string): Promise<number> {
  const row = await db
    .selectFrom('instances')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('status', '<>', 'deleting')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateInstance(
  db: DbOrTx,
  id: string,
  patch: InstanceRowUpdate,
  onlyIf?: { statusNot?: InstanceStatus; statusIn?: InstanceStatus[]; domainVerified?: string },
): Promise<InstanceRow | undefined> {
  let query = db
    .updateTable('instances')
    .set({ ...patch, updated_at: sql<Date>`now()` })
    .where('id', '=', id);
  if (onlyIf?.statusNot) query = query.where('status', '<>', onlyIf.statusNot);
  if (onlyIf?.statusIn) query = query.where('status', 'in', onlyIf.statusIn);
  if (onlyIf?.domainVerified) {
    query = query.where('custom_domain', '=', onlyIf.domainVerified).where('domain_status', '=', 'verified');
  }
  return query.returningAll().executeTakeFirst();
}

export async function deleteInstanceRow(db: DbOrTx, id: string): Promise<InstanceRow | undefined> {
  return db.deleteFrom('instances').where('id', '=', id).returningAll().executeTakeFirst();
}

/** Sets `suspended` on the user's instances that differ from it; answers the rows it changed. */
export async function updateSuspendedOfUser(
  db: DbOrTx,
  userId: string,
  suspended: boolean,
): Promise<InstanceRow[]> {
  return db
    .updateTable('instances')
    .set({ suspended, updated_at: sql<Date>`now()` })
    .where('user_id', '=', userId)
    .where('suspended', '<>', suspended)
    .returningAll()
    .execute();
}

/** Every instance that was deployed and is not being deleted (what the usage sampler measures). */
export async function findDeployedInstances(db: DbOrTx): Promise<InstanceRow[]> {
  return db
    .selectFrom('instances')
    .selectAll()
    .where('deployed_at', 'is not', null)
    .where('status', '<>', 'deleting')
    .execute();
}

/** Every instance whose tenant should exist or go: all but those whose deploy never succeeded and gave up. */
export async function findInstancesToReconcile(db: DbOrTx): Promise<InstanceRow[]> {
  return db
    .selectFrom('instances')
    .selectAll()
    .where((eb) => eb.or([eb('status', 'in', ['deploying', 'deleting']), eb('deployed_at', 'is not', null)]))
    .orderBy('created_at')
    .execute();
}

export async function findCredentials(
  db: DbOrTx,
  instanceId: string,
): Promise<InstanceCredentialsRow | undefined> {
  return db
    .selectFrom('instance_credentials')
    .selectAll()
    .where('instance_id', '=', instanceId)
    .executeTakeFirst();
}

export async function updateCredentials(
  db: DbOrTx,
  instanceId: string,
  patch: { secret?: string; pending_password?: string | null; password_error?: string | null },
  onlyIfPending?: string,
): Promise<boolean> {
  let query = db
    .updateTable('instance_credentials')
    .set({ ...patch, updated_at: sql<Date>`now()` })
    .where('instance_id', '=', instanceId);
  if (onlyIfPending !== undefined) query = query.where('pending_password', '=', onlyIfPending);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
