import type { Db } from '../../db/database.ts';
import { NotFoundError } from '../../lib/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import type { BillingCycle, PaidPlan } from '../subscriptions/billing-rules.ts';
import { factsOf, standingOf } from '../subscriptions/plan-rules.ts';
import type { Subscription } from '../subscriptions/subscriptions.schemas.ts';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import { findRole, findUserSummariesPage, findUsersPage, userExists } from './admin.repository.ts';
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
    if (!(await userExists(db, id))) throw new NotFoundError('User not found');
    return id;
  }

  return {
    /** Whether the user is an admin now (the role in the database, not the token's). */
    async isAdmin(userId: string): Promise<boolean> {
      if (!isUuid(userId)) return false;
      return (await findRole(db, userId)) === 'admin';
    },

    async listUsers(query: { page?: number; limit?: number; search?: string }): Promise<AdminUserList> {
      const page = query.page ?? 1;
      const limit = query.limit ?? 20;
      const search = query.search?.trim() ?? '';
      const { rows, total } = await findUsersPage(db, { search, limit, offset: (page - 1) * limit });
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
      const { rows, total } = await findUserSummariesPage(db, { search, limit, offset: (page - 1) * limit });
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
