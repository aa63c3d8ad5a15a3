import { randomInt } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import type { AffiliateRow } from '../../db/tables/affiliates.ts';
import { ConflictError } from '../../lib/errors.ts';
import { ALREADY_AFFILIATE, CODE_TAKEN, iso, ownAffiliate, referralLinks } from './affiliate-program.ts';
import * as repo from './affiliates.repository.ts';
import type {
  AffiliateProfile,
  AffiliateRegisterBody,
  PaymentDetailsBody,
  ReferralBody,
} from './affiliates.schemas.ts';
import { type DetailsVault, detailsFor, shownDetails } from './payment-details.ts';

export interface AffiliateProfilesDeps {
  db: Db;
  now: () => Date;
  vault: DetailsVault;
  /** Origin of the web app, for referral links. */
  publicUrl: string;
}

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const randomCode = () =>
  Array.from({ length: 8 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');

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
async function withFreshCode(make: (code: string) => Promise<AffiliateRow>): Promise<AffiliateRow> {
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

export type AffiliateProfilesService = ReturnType<typeof createAffiliateProfilesService>;

/** Becoming an affiliate and the affiliate's own settings: referral code, public name, payout method. */
export function createAffiliateProfilesService({ db, now, vault, publicUrl }: AffiliateProfilesDeps) {
  const links = (code: string) => referralLinks(publicUrl, code);

  function profileOf(row: AffiliateRow): AffiliateProfile {
    return {
      id: row.id,
      referralCode: row.referral_code,
      ...links(row.referral_code),
      referralName: row.referral_name,
      referralNumber: row.referral_number,
      website: row.website,
      status: row.status,
      paymentMethod: row.payment_method,
      ...shownDetails(vault.unseal(row)),
      createdAt: iso(row.created_at),
    };
  }

  return {
    /** POST /api/affiliates/register: the signed-in user becomes an affiliate. */
    async register(userId: string, body: AffiliateRegisterBody) {
      if (await repo.findAffiliateByUser(db, userId)) throw new ConflictError(ALREADY_AFFILIATE);
      // The PayPal e-mail falls back to the account's.
      const details = detailsFor(body, await repo.emailOfUser(db, userId));
      const at = now();
      try {
        const row = await withFreshCode((code) =>
          repo.insertAffiliate(db, {
            user_id: userId,
            referral_code: code,
            website: body.website || null,
            payment_method: body.paymentMethod,
            payment_details: vault.seal(details, userId),
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

    me: async (userId: string): Promise<AffiliateProfile> => profileOf(await ownAffiliate(db, userId)),

    /** Whether the user has an affiliate profile ('active' or 'suspended'), for the user's profile. */
    async statusOf(userId: string): Promise<'active' | 'suspended' | null> {
      return (await repo.findAffiliateByUser(db, userId))?.status ?? null;
    },

    /** PUT /api/affiliates/referral: code (unique), public name and number, website. */
    async updateReferral(userId: string, body: ReferralBody) {
      const a = await ownAffiliate(db, userId);
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
      const a = await ownAffiliate(db, userId);
      const details = detailsFor(body);
      const row = await repo.updateAffiliate(db, a.id, {
        payment_method: body.paymentMethod,
        payment_details: vault.seal(details, userId),
        updated_at: now(),
      });
      return profileOf(row);
    },

    /** POST /api/affiliates/generate-code: the code (a new random one with `force`). */
    async generateCode(userId: string, force: boolean) {
      const a = await ownAffiliate(db, userId);
      let code = a.referral_code;
      if (force) {
        const row = await withFreshCode((fresh) =>
          repo.updateAffiliate(db, a.id, { referral_code: fresh, updated_at: now() }),
        );
        code = row.referral_code;
      }
      return { referralCode: code, ...links(code) };
    },
  };
}
