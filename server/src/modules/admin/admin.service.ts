import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { NotFoundError } from '../../lib/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import type { BillingCycle, PaidPlan } from '../subscriptions/billing-rules.ts';
import { standingOf } from '../subscriptions/plan-rules.ts';
import type { Subscription } from '../subscriptions/subscriptions.schemas.ts';
import { factsOf, type SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import type { AdminUserList, UserSummaryList } from './admin.schemas.ts';

export interface AdminDeps {
  db: Db;
  now: () => Date;
  subscriptions: Pick<SubscriptionsService, 'get' | 'activatePlan' | 'endPlan'>;
  /** Stops a provider's renewing subscription before a revocation (so it charges no more). */
  renewals: { stopRenewalNow(userId: string): Promise<void> };
}

export type AdminService = ReturnType<typeof createAdminService>;

export function createAdminService({ db, now, subscriptions, renewals }: AdminDeps) {
  async function existingUser(id: string): Promise<string> {
    if (!isUuid(id)) throw new NotFoundError('User not found');
    const row = await db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst();
    if (!row) throw new NotFoundError('User not found');
    return row.id;
  }

  return {
    /** Whether the user is an admin now (the role in the database, not the token's). */
    async isAdmin(userId: string): Promise<boolean> {
      if (!isUuid(userId)) return false;
      const row = await db.selectFrom('users').select('role').where('id', '=', userId).executeTakeFirst();
      return row?.role === 'admin';
    },

    async listUsers(query: { page?: number; limit?: number; search?: string }): Promise<AdminUserList> {
      const page = query.page ?? 1;
      const limit = query.limit ?? 20;
      const search = query.search?.trim() ?? '';
      // The pattern is matched literally: % _ and \ in the search are escaped.
      const pattern = `%${search.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
      let base = db.selectFrom('users').innerJoin('subscriptions', 'subscriptions.user_id', 'users.id');
      if (search) {
        base = base.where((eb) =>
          eb.or([eb(sql`users.username`, 'ilike', pattern), eb(sql`users.email`, 'ilike', pattern)]),
        );
      }
      const { n } = await base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
      const total = Number(n);
      const rows = await base
        .selectAll('subscriptions')
        .select((eb) => [
          'users.id',
          'users.username',
          'users.email',
          'users.role',
          'users.created_at as user_created_at',
          eb
            .selectFrom('instances')
            .select((ib) => ib.fn.countAll<string>().as('c'))
            .whereRef('instances.user_id', '=', 'users.id')
            .where('instances.status', '<>', 'deleting')
            .as('instances_used'),
        ])
        .orderBy('users.created_at', 'desc')
        .orderBy('users.id')
        .limit(limit)
        .offset((page - 1) * limit)
        .execute();
      const at = now();
      return {
        users: rows.map((r) => ({
          id: r.id,
          username: r.username,
          email: r.email,
          role: r.role,
          plan: r.plan,
          standing: standingOf(factsOf(r), at),
          instancesUsed: Number(r.instances_used ?? 0),
          createdAt: r.user_created_at.toISOString(),
        })),
        total,
        pages: Math.max(1, Math.ceil(total / limit)),
        page,
        limit,
      };
    },

    /** Names and e-mails of users, sorted by name, for choosing one. */
    async listUserSummaries(query: {
      page?: number;
      limit?: number;
      search?: string;
    }): Promise<UserSummaryList> {
      const page = query.page ?? 1;
      const limit = query.limit ?? 100;
      const search = query.search?.trim() ?? '';
      const pattern = `%${search.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
      let base = db.selectFrom('users');
      if (search) {
        base = base.where((eb) =>
          eb.or([
            eb('first_name', 'ilike', pattern),
            eb('last_name', 'ilike', pattern),
            eb('email', 'ilike', pattern),
          ]),
        );
      }
      const { n } = await base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
      const total = Number(n);
      const rows = await base
        .select(['id', 'first_name', 'last_name', 'email', 'role'])
        .orderBy('last_name')
        .orderBy('first_name')
        .orderBy('email')
        .limit(limit)
        .offset((page - 1) * limit)
        .execute();
      return {
        users: rows.map((r) => ({
          _id: r.id,
          id: r.id,
          firstName: r.first_name,
          lastName: r.last_name,
          email: r.email,
          role: r.role,
        })),
        total,
        pages: Math.max(1, Math.ceil(total / limit)),
        page,
        limit,
      };
    },

    async grantPlan(id: string, plan: PaidPlan, billingCycle: BillingCycle): Promise<Subscription> {
      const userId = await existingUser(id);
      await subscriptions.activatePlan(userId, {
        plan,
        billingCycle,
        provider: 'manual',
        enforceInstanceLimit: true,
      });
      return subscriptions.get(userId);
    },

    async revokePlan(id: string): Promise<Subscription> {
      const userId = await existingUser(id);
      await renewals.stopRenewalNow(userId);
      await subscriptions.endPlan(userId);
      return subscriptions.get(userId);
    },
  };
}
