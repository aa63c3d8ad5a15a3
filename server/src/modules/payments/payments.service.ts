import type { Db } from '../../db/database.ts';
import { paymentSettings } from '../subscriptions/subscriptions.service.ts';
import type { BillingHistory } from './payments.schemas.ts';

export type PaymentsService = ReturnType<typeof createPaymentsService>;

export function createPaymentsService({ db }: { db: Db }) {
  return {
    /** The same settings GET /api/subscriptions/status carries (one source). */
    settings: paymentSettings,

    async billingHistory(userId: string): Promise<BillingHistory> {
      const rows = await db
        .selectFrom('invoices')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('date', 'desc')
        .limit(200)
        .execute();
      return {
        invoices: rows.map((r) => ({
          id: r.id,
          amount: Number(r.amount),
          currency: r.currency,
          description: r.description,
          date: r.date.toISOString(),
          status: r.status,
          provider: r.provider,
          downloadUrl: r.download_url,
        })),
      };
    },
  };
}
