import { createHash, randomInt } from 'node:crypto';
import type { Db, DbOrTx } from '../../db/database.ts';
import type { AffiliatePayoutRow, AffiliateRow } from '../../db/tables/affiliates.ts';
import type { Cipher } from '../../lib/crypto.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import type { PaymentListener, RecordedPayment, RecordedRefund } from '../payments/payment-listener.ts';
import * as repo from './affiliates.repository.ts';
import type {
  AdminPayout,
  AffiliateProfile,
  AffiliateRegisterBody,
  BankDetails,
  CryptoWallet,
  PaymentDetailsBody,
  Payout,
  ReferralBody,
} from './affiliates.schemas.ts';

// The programme's constants.
/** 20 % one-time commission on the first paid subscription payment. */
const COMMISSION_PERCENT = 20;
/** The commission is held this long before a payout may take it; the referral cookie lives as long. */
const HOLD_DAYS = 30;
export const ATTRIBUTION_DAYS = 30;
const DEFAULT_MINIMUM_PAYOUT_MINOR = 50_00;
/**
 * A click's visitor hash (of the visitor's address and browser: the only per-visitor data a click
 * keeps) is cleared this many days after the click. It is needed only to count a visitor once a day;
 * the row itself (affiliate, time) stays for the statements until CLICK_RETENTION_MONTHS.
 */
export const CLICK_VISITOR_DATA_DAYS = 30;
/** Clicks are deleted this many months after the click, as the Affiliate Privacy Policy says ("up to 24 months"). */
export const CLICK_RETENTION_MONTHS = 24;
const DAY_MS = 24 * 60 * 60 * 1000;

// Messages.
export const NOT_AN_AFFILIATE = 'Affiliate profile not found';
const ALREADY_AFFILIATE = 'You are already an affiliate';
export const PAYPAL_EMAIL_REQUIRED = 'PayPal email is required';
export const BANK_REQUIRED = 'Bank account information is required';
const CRYPTO_REQUIRED = 'Crypto wallet address is required';
const INVALID_PAYPAL_EMAIL = 'Invalid PayPal email';
export const CODE_TAKEN = 'This referral code is already taken';
const CODE_NOT_FOUND = 'Referral code not found';
export const INVALID_PAYOUT_AMOUNT = 'Please enter a valid payout amount';
const minimumPayoutMessage = (min: string) => `Minimum payout amount is $${min}`;
export const PAYOUT_EXCEEDS_BALANCE = 'Payout amount cannot exceed pending payout balance';
const PAYOUT_NOT_FOUND = 'Payout not found';
const PAYOUT_PROCESSED = 'This payout was already processed';

export interface AffiliatesDeps {
  db: Db;
  now: () => Date;
  cipher: Cipher;
  notifications: Pick<NotificationsService, 'notify'>;
  /** Origin of the web app, for referral links. */
  publicUrl: string;
  /** Server value of the minimum payout (minor units); absent: $50. */
  minimumPayoutMinor?: number;
}

/** What the referral cookie and the `ref` parameter bring to a registration. */
export interface SignupReferral {
  /** The `ref` parameter (a code). */
  ref?: string | null;
  /** The referral cookie: the id of the visitor's last counted click. */
  clickId?: string | null;
}

interface StoredDetails {
  paypalEmail?: string | null;
  bankDetails?: BankDetails | null;
  cryptoWallet?: CryptoWallet | null;
}

const DETAILS_CONTEXT = 'affiliate-payment-details';
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** User agents of crawlers, link previews and scripts: their clicks are not counted. */
const BOT_AGENT =
  /bot\b|bot\/|crawl|spider|slurp|facebookexternalhit|embedly|preview|curl\/|wget\/|python-requests|httpclient|go-http-client|okhttp|java\/|libwww|scrapy|^$/i;

const isBotAgent = (userAgent: string | undefined): boolean => BOT_AGENT.test(userAgent ?? '');
/** Minor units as currency units (1234 → 12.34). */
const units = (minor: number | string): number => Number(minor) / 100;
const iso = (d: Date) => d.toISOString();
const utcDay = (d: Date) => d.toISOString().slice(0, 10);
const monthKey = (d: Date) => d.toISOString().slice(0, 7);
/** Percent change, one decimal; null when last month had nothing and this month has something. */
function change(current: number, previous: number): number | null {
  if (previous === 0) return current === 0 ? 0 : null;
  return Math.round(((current - previous) / Math.abs(previous)) * 1000) / 10;
}
const rate = (active: number, total: number) => (total === 0 ? 0 : Math.round((active / total) * 1000) / 10);

export type AffiliatesService = ReturnType<typeof createAffiliatesService>;

export function createAffiliatesService(deps: AffiliatesDeps) {
  const { db, now, cipher, notifications, publicUrl } = deps;
  const minimumPayoutMinor = deps.minimumPayoutMinor ?? DEFAULT_MINIMUM_PAYOUT_MINOR;
  const links = (code: string) => ({
    referralLink: `${publicUrl}/register?ref=${encodeURIComponent(code)}`,
    homepageLink: `${publicUrl}/?ref=${encodeURIComponent(code)}`,
  });

  const randomCode = () =>
    Array.from({ length: 8 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');

  /** The payout details a method needs, checked with the spec's messages, as stored (encrypted). */
  function detailsFor(body: PaymentDetailsBody, fallbackEmail?: string): StoredDetails {
    switch (body.paymentMethod) {
      case 'paypal': {
        const email = body.paypalEmail || fallbackEmail;
        if (!email)
          throw new ValidationError(PAYPAL_EMAIL_REQUIRED, {
            fieldErrors: { paypalEmail: [PAYPAL_EMAIL_REQUIRED] },
          });
        if (!/^\S+@\S+\.\S+$/.test(email))
          throw new ValidationError(INVALID_PAYPAL_EMAIL, {
            fieldErrors: { paypalEmail: [INVALID_PAYPAL_EMAIL] },
          });
        return { paypalEmail: email };
      }
      case 'bank': {
        const b =
          typeof body.bankDetails === 'string' ? { details: body.bankDetails } : (body.bankDetails ?? {});
        const given = Object.values(b).some((v) => typeof v === 'string' && v.length > 0);
        const complete =
          Boolean(b.details) || Boolean((b.accountNumber || b.iban) && (b.accountName || b.bankName));
        if (!given || !complete)
          throw new ValidationError(BANK_REQUIRED, { fieldErrors: { bankDetails: [BANK_REQUIRED] } });
        return { bankDetails: b };
      }
      case 'crypto': {
        const w = body.cryptoWallet;
        if (!w?.address)
          throw new ValidationError(CRYPTO_REQUIRED, { fieldErrors: { cryptoWallet: [CRYPTO_REQUIRED] } });
        return { cryptoWallet: w };
      }
    }
  }

  const seal = (details: StoredDetails, affiliateUserId: string) =>
    cipher.encrypt(JSON.stringify(details), `${DETAILS_CONTEXT}:${affiliateUserId}`);
  const unseal = (row: Pick<AffiliateRow, 'payment_details' | 'user_id'>): StoredDetails =>
    JSON.parse(cipher.decrypt(row.payment_details, `${DETAILS_CONTEXT}:${row.user_id}`)) as StoredDetails;

  function profileOf(row: AffiliateRow): AffiliateProfile {
    const d = unseal(row);
    return {
      id: row.id,
      referralCode: row.referral_code,
      ...links(row.referral_code),
      referralName: row.referral_name,
      referralNumber: row.referral_number,
      website: row.website,
      status: row.status,
      paymentMethod: row.payment_method,
      paypalEmail: d.paypalEmail ?? null,
      bankDetails: d.bankDetails ?? null,
      cryptoWallet: d.cryptoWallet ?? null,
      createdAt: iso(row.created_at),
    };
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

  /** The caller's affiliate row; a user without one gets 404 (the UI sends them to apply). */
  async function own(userId: string, trx: DbOrTx = db): Promise<AffiliateRow> {
    const row = await repo.findAffiliateByUser(trx, userId);
    if (!row) throw new NotFoundError(NOT_AN_AFFILIATE);
    return row;
  }

  /** Runs an update that may take a referral code someone else has: 409 with the spec's wording. */
  async function claimingCode<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if ((err as { code?: string }).code === '23505')
        throw new ConflictError(CODE_TAKEN, { fieldErrors: { referralCode: [CODE_TAKEN] } });
      throw err;
    }
  }

  /** A fresh random code (retried on the rare collision). */
  async function insertWithFreshCode(make: (code: string) => Promise<AffiliateRow>): Promise<AffiliateRow> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await make(randomCode());
      } catch (err) {
        const unique =
          (err as { code?: string; constraint?: string }).constraint === 'affiliates_referral_code_key';
        if (!unique || attempt >= 5) throw err;
      }
    }
  }

  async function monthFigures(affiliateId: string, from: Date, to: Date) {
    return repo.monthlyFigures(db, affiliateId, from, to);
  }

  return {
    /** POST /api/affiliates/register: the signed-in user becomes an affiliate. */
    async register(userId: string, body: AffiliateRegisterBody) {
      if (await repo.findAffiliateByUser(db, userId)) throw new ConflictError(ALREADY_AFFILIATE);
      // The PayPal e-mail falls back to the account's.
      const details = detailsFor(body, await repo.emailOfUser(db, userId));
      const at = now();
      try {
        const row = await insertWithFreshCode((code) =>
          repo.insertAffiliate(db, {
            user_id: userId,
            referral_code: code,
            website: body.website || null,
            payment_method: body.paymentMethod,
            payment_details: seal(details, userId),
            created_at: at,
            updated_at: at,
          }),
        );
        return { ok: true as const, message: 'Welcome to the affiliate program!', affiliate: profileOf(row) };
      } catch (err) {
        if ((err as { constraint?: string }).constraint === 'affiliates_user_id_key')
          throw new ConflictError(ALREADY_AFFILIATE);
        throw err;
      }
    },

    me: async (userId: string): Promise<AffiliateProfile> => profileOf(await own(userId)),

    /** Whether the user has an affiliate profile ('active' or 'suspended'), for the user's profile. */
    async statusOf(userId: string): Promise<'active' | 'suspended' | null> {
      return (await repo.findAffiliateByUser(db, userId))?.status ?? null;
    },

    async dashboard(userId: string) {
      const a = await own(userId);
      const at = now();
      const thisMonth = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
      const lastMonth = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() - 1, 1));
      const [money, counts, clicks, months, balanceLastMonth, currency] = await Promise.all([
        repo.balances(db, a.id, at),
        repo.referralCounts(db, a.id),
        repo.clickCount(db, a.id),
        monthFigures(a.id, lastMonth, new Date(at.getTime() + 1)),
        repo.balanceAt(db, a.id, thisMonth),
        repo.storeCurrency(db),
      ]);
      const zero = { clicks: 0, referrals: 0, activeReferrals: 0, earnings: 0 };
      const cur = months.get(monthKey(thisMonth)) ?? zero;
      const prev = months.get(monthKey(lastMonth)) ?? zero;
      // The conversion rate as it stood at the end of last month.
      const rateBefore = rate(counts.active - cur.activeReferrals, counts.total - cur.referrals);
      const conversionRate = rate(counts.active, counts.total);
      return {
        currency,
        totalEarnings: units(money.earned),
        pendingEarnings: units(money.balance),
        availableBalance: units(money.available),
        heldEarnings: units(money.balance - money.available),
        totalReferrals: counts.total,
        activeReferrals: counts.active,
        totalClicks: clicks,
        conversionRate,
        referralCode: a.referral_code,
        ...links(a.referral_code),
        referralName: a.referral_name,
        referralNumber: a.referral_number,
        changes: {
          totalEarnings: change(cur.earnings, prev.earnings),
          pendingEarnings: change(money.balance, balanceLastMonth),
          totalReferrals: change(cur.referrals, prev.referrals),
          totalClicks: change(cur.clicks, prev.clicks),
          conversionRate: Math.round((conversionRate - rateBefore) * 10) / 10,
        },
      };
    },

    /** GET /api/affiliates/stats: the twelve months of a year (UTC). */
    async stats(userId: string, year: number | undefined) {
      const a = await own(userId);
      const y = year ?? now().getUTCFullYear();
      const [figures, currency] = await Promise.all([
        monthFigures(a.id, new Date(Date.UTC(y, 0, 1)), new Date(Date.UTC(y + 1, 0, 1))),
        repo.storeCurrency(db),
      ]);
      const months = Array.from({ length: 12 }, (_, i) => {
        const f = figures.get(`${y}-${String(i + 1).padStart(2, '0')}`);
        return {
          month: i + 1,
          clicks: f?.clicks ?? 0,
          referrals: f?.referrals ?? 0,
          activeReferrals: f?.activeReferrals ?? 0,
          earnings: units(f?.earnings ?? 0),
        };
      });
      const sum = (k: 'clicks' | 'referrals' | 'activeReferrals') => months.reduce((s, m) => s + m[k], 0);
      const earningsMinor = [...figures.values()].reduce((s, f) => s + f.earnings, 0);
      return {
        year: y,
        currency,
        months,
        totals: {
          clicks: sum('clicks'),
          referrals: sum('referrals'),
          activeReferrals: sum('activeReferrals'),
          earnings: units(earningsMinor),
        },
      };
    },

    /** PUT /api/affiliates/referral: code (unique), public name and number, website. */
    async updateReferral(userId: string, body: ReferralBody) {
      const a = await own(userId);
      const row = await claimingCode(() =>
        repo.updateAffiliate(db, a.id, {
          ...(body.referralCode !== undefined && { referral_code: body.referralCode }),
          ...(body.referralName !== undefined && { referral_name: body.referralName || null }),
          ...(body.referralNumber !== undefined && { referral_number: body.referralNumber || null }),
          ...(body.website !== undefined && { website: body.website || null }),
          updated_at: now(),
        }),
      );
      return {
        referralCode: row.referral_code,
        referralName: row.referral_name,
        referralNumber: row.referral_number,
        website: row.website,
        referralLink: links(row.referral_code).referralLink,
        message: 'Referral settings saved',
      };
    },

    /** PUT /api/affiliates/payment-details: the payout method and its details (stored encrypted). */
    async updatePaymentDetails(userId: string, body: PaymentDetailsBody): Promise<AffiliateProfile> {
      const a = await own(userId);
      const details = detailsFor(body);
      const row = await repo.updateAffiliate(db, a.id, {
        payment_method: body.paymentMethod,
        payment_details: seal(details, userId),
        updated_at: now(),
      });
      return profileOf(row);
    },

    /** POST /api/affiliates/generate-code: the code (a new random one with `force`). */
    async generateCode(userId: string, force: boolean) {
      const a = await own(userId);
      let code = a.referral_code;
      if (force) {
        const row = await insertWithFreshCode((fresh) =>
          repo.updateAffiliate(db, a.id, { referral_code: fresh, updated_at: now() }),
        );
        code = row.referral_code;
      }
      return { referralCode: code, ...links(code) };
    },

    /**
     * POST /api/affiliates/track-click/{code}: counts the click (once per visitor per day; not bots, not
     * the affiliate's own) and answers the click id the referral cookie keeps (last click wins).
     */
    async trackClick(
      code: string,
      visitor: { address: string; userAgent: string | undefined; userId?: string },
    ): Promise<{ tracked: boolean; counted: boolean; clickId?: string }> {
      const a = await repo.findAffiliateByCode(db, code.trim().toUpperCase());
      if (!a) throw new NotFoundError(CODE_NOT_FOUND);
      if (isBotAgent(visitor.userAgent) || visitor.userId === a.user_id)
        return { tracked: false, counted: false };
      const at = now();
      const visitorKey = createHash('sha256')
        .update(`${visitor.address}|${visitor.userAgent ?? ''}`)
        .digest('hex');
      const click = await repo.recordClick(db, { affiliateId: a.id, visitorKey, day: utcDay(at), at });
      return { tracked: true, counted: click.counted, clickId: click.id };
    },

    /**
     * At registration (inside its transaction): the new user is referred by the affiliate of the
     * referral cookie's click if it is under 30 days old (the last click wins), else by the `ref` code.
     * Never by themself.
     */
    async attributeSignup(trx: DbOrTx, userId: string, referral: SignupReferral): Promise<void> {
      const at = now();
      let affiliateId: string | undefined;
      let clickId: string | null = null;
      if (referral.clickId && UUID.test(referral.clickId)) {
        const click = await repo.findClick(trx, referral.clickId);
        if (click && at.getTime() - click.created_at.getTime() <= ATTRIBUTION_DAYS * DAY_MS) {
          affiliateId = click.affiliate_id;
          clickId = click.id;
        }
      }
      let affiliateUser: string | undefined;
      if (affiliateId === undefined && referral.ref) {
        const a = await repo.findAffiliateByCode(trx, referral.ref.trim().toUpperCase());
        affiliateId = a?.id;
        affiliateUser = a?.user_id;
      }
      if (affiliateId === undefined) return;
      affiliateUser ??= await repo.userOfAffiliate(trx, affiliateId);
      if (!affiliateUser || affiliateUser === userId) return;
      await repo.insertReferral(trx, { affiliateId, userId, clickId, at });
    },

    /**
     * Click retention (a background task runs it, background.ts): deletes clicks older than
     * CLICK_RETENTION_MONTHS and clears the visitor hash of those older than CLICK_VISITOR_DATA_DAYS;
     * the others stay counted. Answers how many were deleted and cleared.
     */
    async applyClickRetention(): Promise<{ deleted: number; cleared: number }> {
      const at = now().getTime();
      const expired = new Date(at);
      expired.setUTCMonth(expired.getUTCMonth() - CLICK_RETENTION_MONTHS);
      const deleted = await repo.deleteClicksBefore(db, expired);
      const cleared = await repo.clearVisitorKeysBefore(db, new Date(at - CLICK_VISITOR_DATA_DAYS * DAY_MS));
      return { deleted, cleared };
    },

    /** The payments module's listener: commissions from recorded payments, reversals from refunds. */
    paymentListener: {
      /**
       * 20 % of the net amount of a referred user's first paid subscription payment, held 30 days. Once
       * per referral and per payment (a resent event finds the referral's first payment already set).
       */
      async paid(trx: DbOrTx, p: RecordedPayment): Promise<void> {
        if (p.kind !== 'plan' || p.netMinor <= 0) return;
        const referral = await repo.lockReferralOfUser(trx, p.userId);
        if (!referral || referral.first_payment_ref !== null) return;
        const at = now();
        await repo.markFirstPayment(trx, referral.id, `${p.provider}:${p.providerRef}`, at);
        const amount = Math.round((p.netMinor * COMMISSION_PERCENT) / 100);
        if (amount <= 0) return;
        await repo.insertLedgerEntry(trx, {
          affiliateId: referral.affiliate_id,
          kind: 'commission',
          amountMinor: amount,
          currency: p.currency,
          availableAt: new Date(at.getTime() + HOLD_DAYS * DAY_MS),
          at,
          referralId: referral.id,
          source: { provider: p.provider, ref: p.providerRef },
        });
      },

      /**
       * A refund takes back the same share of the commission: inside the hold a clawback (the pending
       * commission shrinks), after it a negative adjustment. The refund is told as the total refunded so
       * far, so only the part not yet taken back is taken (a resent event takes nothing more).
       */
      async refunded(trx: DbOrTx, r: RecordedRefund): Promise<void> {
        if (r.paidMinor <= 0 || r.refundedMinor <= 0) return;
        const commission = await repo.lockCommissionOfSource(trx, r.provider, r.providerRef);
        if (!commission) return;
        const share = Math.min(1, r.refundedMinor / r.paidMinor);
        const due = Math.round(Number(commission.amount_minor) * share);
        const taken = await repo.reversedOfSource(trx, r.provider, r.providerRef);
        if (due <= taken) return;
        const at = now();
        const inHold = at < commission.available_at;
        await repo.insertLedgerEntry(trx, {
          affiliateId: commission.affiliate_id,
          kind: inHold ? 'clawback' : 'adjustment',
          amountMinor: -(due - taken),
          currency: commission.currency,
          // A clawback reduces the held commission at the moment it would have become available.
          availableAt: inHold ? commission.available_at : at,
          at,
          referralId: commission.referral_id,
          source: { provider: r.provider, ref: r.providerRef },
        });
      },
    } satisfies PaymentListener,

    async payouts(userId: string) {
      const a = await own(userId);
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
    async requestPayout(userId: string, rawAmount: number | string) {
      const a = await own(userId);
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
      return rows.map((r) => {
        const d = unseal(r);
        return {
          ...payoutOf(r),
          affiliate: {
            id: r.affiliate_id,
            userId: r.user_id,
            referralCode: r.referral_code,
            username: r.username,
            email: r.email,
          },
          paymentMethod: r.payment_method,
          paypalEmail: d.paypalEmail ?? null,
          bankDetails: d.bankDetails ?? null,
          cryptoWallet: d.cryptoWallet ?? null,
        };
      });
    },

    /** Admin: the payout was sent (with the provider's transaction id); the affiliate is told. */
    async completePayout(payoutId: string, transactionId: string): Promise<Payout> {
      return db.transaction().execute(async (trx) => {
        const p = await processable(trx, payoutId);
        const at = now();
        const row = await repo.updatePayout(trx, p.id, {
          status: 'completed',
          transaction_id: transactionId,
          processed_at: at,
        });
        await notifications.notify(
          await ownerOf(trx, p.affiliate_id),
          {
            type: 'affiliate',
            title: 'Payout sent',
            message: `Your payout of ${units(p.amount_minor).toFixed(2)} ${p.currency} was sent (transaction ${transactionId}).`,
          },
          trx,
        );
        return payoutOf(row);
      });
    },

    /** Admin: the payout could not be sent; its amount returns to the balance and the affiliate is told. */
    async failPayout(payoutId: string, reason?: string): Promise<Payout> {
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
        await notifications.notify(
          await ownerOf(trx, p.affiliate_id),
          {
            type: 'affiliate',
            title: 'Payout failed',
            message: `Your payout of ${units(p.amount_minor).toFixed(2)} ${p.currency} could not be sent${reason ? `: ${reason}` : ''}. The amount is back in your balance.`,
          },
          trx,
        );
        return payoutOf(row);
      });
    },
  };

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
}
