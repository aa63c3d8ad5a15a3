import type { Db } from '../../db/database.ts';
import { ownAffiliate, referralLinks, units } from './affiliate-program.ts';
import * as repo from './affiliates.repository.ts';
import * as figuresRepo from './figures.repository.ts';

export interface AffiliateFiguresDeps {
  db: Db;
  now: () => Date;
  /** Origin of the web app, for referral links. */
  publicUrl: string;
}

const monthKey = (d: Date) => d.toISOString().slice(0, 7);
/** Percent change, one decimal; null when last month had nothing and this month has something. */
function change(current: number, previous: number): number | null {
  if (previous === 0) return current === 0 ? 0 : null;
  return Math.round(((current - previous) / Math.abs(previous)) * 1000) / 10;
}
const rate = (active: number, total: number) => (total === 0 ? 0 : Math.round((active / total) * 1000) / 10);

export type AffiliateFiguresService = ReturnType<typeof createAffiliateFiguresService>;

/** What an affiliate earned and brought: the dashboard's figures and the monthly statement. */
export function createAffiliateFiguresService({ db, now, publicUrl }: AffiliateFiguresDeps) {
  return {
    async dashboard(userId: string) {
      const a = await ownAffiliate(db, userId);
      const at = now();
      const thisMonth = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
      const lastMonth = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() - 1, 1));
      const [money, counts, clicks, months, balanceLastMonth, currency] = await Promise.all([
        repo.balances(db, a.id, at),
        figuresRepo.referralCounts(db, a.id),
        figuresRepo.clickCount(db, a.id),
        figuresRepo.monthlyFigures(db, a.id, lastMonth, new Date(at.getTime() + 1)),
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
        ...referralLinks(publicUrl, a.referral_code),
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
      const a = await ownAffiliate(db, userId);
      const y = year ?? now().getUTCFullYear();
      const [figures, currency] = await Promise.all([
        figuresRepo.monthlyFigures(db, a.id, new Date(Date.UTC(y, 0, 1)), new Date(Date.UTC(y + 1, 0, 1))),
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
  };
}
