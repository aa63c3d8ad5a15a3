import type { Capabilities } from '../instances/instances.schemas.ts';
import type { PaymentSettingsStore } from '../payments/payment-settings.ts';
import { currencySymbol } from '../subscriptions/billing-rules.ts';
import { YEARLY_DISCOUNT, yearlyPrice } from '../subscriptions/plan-rules.ts';
import type { PublicConfig } from './config.schemas.ts';

/** Build flag: OAuth sign-in is switched off. */
const OAUTH_ENABLED = false;

/** What visitors read for a type the driver cannot deploy for another reason than "Coming soon". */
export const NOT_OFFERED = 'Not available on this server yet';
/** Why the public API shows as unavailable while no /api/v1 route exists. */
const PUBLIC_API_COMING = 'Coming soon';

/** How long the instance types' availability is reused (it asks the database servers). */
const CAPABILITIES_TTL_MS = 10_000;

export interface ConfigDeps {
  /** Site key of the bot-check widget; null when the check is off. */
  turnstileSiteKey: string | null;
  /** The admin's prices (Admin Panel → Payments), the same the checkout charges. */
  paymentSettings: Pick<PaymentSettingsStore, 'read'>;
  /** Which instance types the provisioning driver can deploy now. */
  capabilities(): Promise<Capabilities>;
  /** Whether the public API (paths under /api/v1) exists on this server. */
  publicApiAvailable(): boolean;
  clock?: () => number;
}

export type ConfigService = ReturnType<typeof createConfigService>;

/**
 * A reason fit for visitors: the driver's own reasons name server internals (a socket, a missing
 * package), so only "Coming soon" passes through.
 */
const publicReason = (reason: string | null) => (reason === 'Coming soon' ? reason : NOT_OFFERED);

export function createConfigService(deps: ConfigDeps) {
  const clock = deps.clock ?? Date.now;
  let cached: { value: Promise<Capabilities>; at: number } | undefined;
  const capabilities = () => {
    const at = clock();
    if (!cached || at - cached.at > CAPABILITIES_TTL_MS) {
      const entry = { value: deps.capabilities(), at };
      cached = entry;
      entry.value.catch(() => {
        if (cached === entry) cached = undefined;
      });
    }
    return cached.value;
  };

  return {
    /**
     * What the public pages need before anyone signs in: bot check, sign-in options, the prices the
     * admin set, and what this install can deploy.
     */
    async get(): Promise<PublicConfig> {
      const [settings, found] = await Promise.all([deps.paymentSettings.read(), capabilities()]);
      const plan = (id: 'starter' | 'pro') => ({
        monthly: settings.prices[id],
        yearlyDiscount: YEARLY_DISCOUNT[id],
        yearly: yearlyPrice(settings.prices[id], YEARLY_DISCOUNT[id]),
      });
      const publicApi = deps.publicApiAvailable();
      return {
        turnstileSiteKey: deps.turnstileSiteKey,
        oauthEnabled: OAUTH_ENABLED,
        plans: {
          currency: settings.currency,
          currencySymbol: currencySymbol(settings.currency),
          starter: plan('starter'),
          pro: plan('pro'),
          addonInstance: settings.prices.addonInstance,
        },
        offer: {
          instanceTypes: found.types.map((t) => ({
            type: t.type,
            name: t.name,
            category: t.category,
            available: t.available,
            reason: t.available ? null : publicReason(t.reason),
          })),
          publicApi: { available: publicApi, reason: publicApi ? null : PUBLIC_API_COMING },
        },
      };
    },
  };
}
