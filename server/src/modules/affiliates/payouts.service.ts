import type { Db, DbOrTx } from '../../db/database.ts';
import type { AffiliatePayoutRow } from '../../db/tables/affiliates.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import {
  DEFAULT_MINIMUM_PAYOUT_MINOR,
  INVALID_PAYOUT_AMOUNT,
  iso,
  minimumPayoutMessage,
  ownAffiliate,
  PAYOUT_EXCEEDS_BALANCE,
  PAYOUT_NOT_FOUND,
  PAYOUT_PROCESSED,
  units,
} from './affiliate-program.ts';
import * as repo from './affiliates.repository.ts';
import type { AdminPayout, Payout } from './affiliates.schemas.ts';
import { type DetailsVault, shownDetails } from './payment-details.ts';

export interface PayoutsDeps {
  db: Db;
  now: () => Date;
  vault: DetailsVault;
  notifications: Pick<NotificationsService, 'notify'>;
  /** Server value of the minimum payout (minor units); absent: $50. */
  minimumPayoutMinor?: number;
}

function payoutOf(p: AffiliatePayoutRow): Payout {
  return {
    id: p.id,
    amount: units(p.amount_minor),
    currency: p.currency,
    status: p.status,
    method: p.method,
    transactionId: p.transaction_id,
    failureReason: p.failure_reason,
    createdAt: iso(p.requested_at),
    requestedAt: iso(p.requested_at),
    processedAt: p.processed_at ? iso(p.processed_at) : null,
  };
}

/** A payout the admin may still complete or fail, locked for it. */
async function processable(trx: DbOrTx, payoutId: string): Promise<AffiliatePayoutRow> {
  const p = await repo.lockPayout(trx, payoutId);
  if (!p) throw new NotFoundError(PAYOUT_NOT_FOUND);
  if (p.status !== 'pending') throw new ConflictError(PAYOUT_PROCESSED);
  return p;
}

async function ownerOf(trx: DbOrTx, affiliateId: string): Promise<string> {
  const userId = await repo.userOfAffiliate(trx, affiliateId);
  if (!userId) throw new Error(`affiliate ${affiliateId} has no row`);
  return userId;
}

export type PayoutsService = ReturnType<typeof createPayoutsService>;

/** Payouts: the affiliate asks for their available balance; the admin pays it (or not) and says so. */
export function createPayoutsService(deps: PayoutsDeps) {
  const { db, now, vault, notifications } = deps;
  const minimumPayoutMinor = deps.minimumPayoutMinor ?? DEFAULT_MINIMUM_PAYOUT_MINOR;

  /** The affiliate is told about their payout, inside the transaction that processes it. */
  const tell = async (trx: DbOrTx, p: AffiliatePayoutRow, title: string, message: string) =>
    notifications.notify(await ownerOf(trx, p.affiliate_id), { type: 'affiliate', title, message }, trx);
  const amountOf = (p: AffiliatePayoutRow) => `${units(p.amount_minor).toFixed(2)} ${p.currency}`;

  return {
    /** GET /api/affiliates/payouts: the affiliate's payouts and balances. */
    async list(userId: string) {
      const a = await ownAffiliate(db, userId);
      const [rows, money, currency] = await Promise.all([
        repo.listPayouts(db, a.id),
        repo.balances(db, a.id, now()),
        repo.storeCurrency(db),
      ]);
      return {
        currency,
        minimumPayout: units(minimumPayoutMinor),
        pendingEarnings: units(money.balance),
        availableBalance: units(money.available),
        payouts: rows.map(payoutOf),
      };
    },

    /** POST /api/affiliates/payouts: the amount leaves the available balance at once (a payout entry). */
    async request(userId: string, rawAmount: number | string) {
      const a = await ownAffiliate(db, userId);
      const amount = typeof rawAmount === 'string' ? Number(rawAmount.trim()) : rawAmount;
      if (!Number.isFinite(amount) || amount <= 0) throw new ValidationError(INVALID_PAYOUT_AMOUNT);
      const amountMinor = Math.round(amount * 100);
      if (amountMinor < minimumPayoutMinor)
        throw new ValidationError(minimumPayoutMessage(String(units(minimumPayoutMinor))));
      return db.transaction().execute(async (trx) => {
        await repo.lockAffiliate(trx, a.id);
        const at = now();
        const money = await repo.balances(trx, a.id, at);
        if (amountMinor > money.available) throw new ValidationError(PAYOUT_EXCEEDS_BALANCE);
        const currency = await repo.storeCurrency(trx);
        const payout = await repo.insertPayout(trx, {
          affiliateId: a.id,
          amountMinor,
          currency,
          method: a.payment_method,
          at,
        });
        await repo.insertLedgerEntry(trx, {
          affiliateId: a.id,
          kind: 'payout',
          amountMinor: -amountMinor,
          currency,
          availableAt: at,
          at,
          payoutId: payout.id,
        });
        return {
          payout: payoutOf(payout),
          pendingEarnings: units(money.balance - amountMinor),
          availableBalance: units(money.available - amountMinor),
          message: 'Payout request submitted successfully!',
        };
      });
    },

    /** Admin: payout requests with the affiliate and the (decrypted) details to pay them. */
    async adminList(status?: AffiliatePayoutRow['status']): Promise<AdminPayout[]> {
      const rows = await repo.listAllPayouts(db, status);
      return rows.map((r) => ({
        ...payoutOf(r),
        affiliate: {
          id: r.affiliate_id,
          userId: r.user_id,
          referralCode: r.referral_code,
          username: r.username,
          email: r.email,
        },
        paymentMethod: r.payment_method,
        ...shownDetails(vault.unseal(r)),
      }));
    },

    /** Admin: the payout was sent (with the provider's transaction id); the affiliate is told. */
    async complete(payoutId: string, transactionId: string): Promise<Payout> {
      return db.transaction().execute(async (trx) => {
        const p = await processable(trx, payoutId);
        const row = await repo.updatePayout(trx, p.id, {
          status: 'completed',
          transaction_id: transactionId,
          processed_at: now(),
        });
        await tell(
          trx,
          p,
          'Payout sent',
          `Your payout of ${amountOf(p)} was sent (transaction ${transactionId}).`,
        );
        return payoutOf(row);
      });
    },

    /** Admin: the payout could not be sent; its amount returns to the balance and the affiliate is told. */
    async fail(payoutId: string, reason?: string): Promise<Payout> {
      return db.transaction().execute(async (trx) => {
        const p = await processable(trx, payoutId);
        const at = now();
        const row = await repo.updatePayout(trx, p.id, {
          status: 'failed',
          failure_reason: reason || null,
          processed_at: at,
        });
        await repo.insertLedgerEntry(trx, {
          affiliateId: p.affiliate_id,
          kind: 'payout_reversal',
          amountMinor: Number(p.amount_minor),
          currency: p.currency,
          availableAt: at,
          at,
          payoutId: p.id,
        });
        await tell(
          trx,
          p,
          'Payout failed',
          `Your payout of ${amountOf(p)} could not be sent${reason ? `: ${reason}` : ''}. The amount is back in your balance.`,
        );
        return payoutOf(row);
      });
    },
  };
}
