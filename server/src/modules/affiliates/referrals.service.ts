import { createHash } from 'node:crypto';
import type { Db, DbOrTx } from '../../db/database.ts';
import { NotFoundError } from '../../lib/errors.ts';
import {
  ATTRIBUTION_DAYS,
  CLICK_RETENTION_MONTHS,
  CLICK_VISITOR_DATA_DAYS,
  CODE_NOT_FOUND,
  DAY_MS,
} from './affiliate-program.ts';
import * as repo from './affiliates.repository.ts';

export interface ReferralsDeps {
  db: Db;
  now: () => Date;
}

/** What the referral cookie and the `ref` parameter bring to a registration. */
export interface SignupReferral {
  /** The `ref` parameter (a code). */
  ref?: string | null;
  /** The referral cookie: the id of the visitor's last counted click. */
  clickId?: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** User agents of crawlers, link previews and scripts: their clicks are not counted. */
const BOT_AGENT =
  /bot\b|bot\/|crawl|spider|slurp|facebookexternalhit|embedly|preview|curl\/|wget\/|python-requests|httpclient|go-http-client|okhttp|java\/|libwww|scrapy|^$/i;

const isBotAgent = (userAgent: string | undefined): boolean => BOT_AGENT.test(userAgent ?? '');
const utcDay = (d: Date) => d.toISOString().slice(0, 10);

export type ReferralsService = ReturnType<typeof createReferralsService>;

/** Who was referred by whom: clicks on referral links, the sign-ups they bring, and the clicks' retention. */
export function createReferralsService({ db, now }: ReferralsDeps) {
  return {
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
  };
}
