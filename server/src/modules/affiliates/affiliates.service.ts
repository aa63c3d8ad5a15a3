// The affiliate programme's services, one per concern, each with only what it needs: the affiliates'
// own settings (profiles), the referrals (clicks and sign-ups), the figures, the payouts, and the
// commissions the payments module records through its listener.
import type { Db } from '../../db/database.ts';
import type { Cipher } from '../../lib/crypto.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import { createAffiliateFiguresService } from './affiliate-figures.service.ts';
import { createAffiliateProfilesService } from './affiliate-profiles.service.ts';
import { createCommissions } from './commissions.ts';
import { createDetailsVault } from './payment-details.ts';
import { createPayoutsService } from './payouts.service.ts';
import { createReferralsService } from './referrals.service.ts';

export interface AffiliatesDeps {
  db: Db;
  now: () => Date;
  /** Encrypts the payout details at rest. */
  cipher: Cipher;
  notifications: Pick<NotificationsService, 'notify'>;
  /** Origin of the web app, for referral links. */
  publicUrl: string;
  /** Server value of the minimum payout (minor units); absent: $50. */
  minimumPayoutMinor?: number;
}

export type AffiliatesServices = ReturnType<typeof createAffiliatesServices>;

export function createAffiliatesServices(deps: AffiliatesDeps) {
  const { db, now, publicUrl } = deps;
  const vault = createDetailsVault(deps.cipher);
  return {
    profiles: createAffiliateProfilesService({ db, now, vault, publicUrl }),
    referrals: createReferralsService({ db, now }),
    figures: createAffiliateFiguresService({ db, now, publicUrl }),
    payouts: createPayoutsService({
      db,
      now,
      vault,
      notifications: deps.notifications,
      minimumPayoutMinor: deps.minimumPayoutMinor,
    }),
    commissions: createCommissions({ now }),
  };
}
