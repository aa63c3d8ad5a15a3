import { z } from '@hono/zod-openapi';
import { INSTANCE_TYPES } from '../../provisioning/instance-types.ts';
import { TYPE_NAMES } from '../instances/instance-catalog.ts';

const PlanPriceSchema = z
  .object({
    monthly: z.number().openapi({ example: 3.99 }),
    yearlyDiscount: z
      .number()
      .openapi({ example: 0.1, description: 'Share off 12 monthly payments: 0.1 is 10 %' }),
    yearly: z
      .number()
      .openapi({ example: 43.09, description: 'monthly × 12 × (1 − yearlyDiscount), in cents' }),
  })
  .openapi('PlanPrice');

const Availability = {
  available: z.boolean(),
  reason: z
    .string()
    .nullable()
    .openapi({ description: 'Why it is unavailable, for visitors ("Coming soon"); null when available' }),
};

const PublicOfferSchema = z
  .object({
    instanceTypes: z.array(
      z.object({
        type: z.enum(INSTANCE_TYPES),
        name: z.enum(TYPE_NAMES),
        category: z.enum(['application', 'database']),
        ...Availability,
      }),
    ),
    publicApi: z.object(Availability).openapi({ description: 'Programmatic access with an API key (Pro)' }),
  })
  .openapi('PublicOffer', { description: 'What this install can deploy and offer now' });

export const PublicConfigSchema = z
  .object({
    turnstileSiteKey: z
      .string()
      .nullable()
      .openapi({ description: 'null: the bot check is off, hide the widget' }),
    oauthEnabled: z.boolean(),
    plans: z
      .object({
        currency: z.string().openapi({ example: 'USD' }),
        currencySymbol: z.string().openapi({ example: '$' }),
        starter: PlanPriceSchema,
        pro: PlanPriceSchema,
        addonInstance: z
          .number()
          .openapi({ description: 'Monthly price of one additional instance (Starter only)' }),
      })
      .openapi({ description: 'The prices set in the Admin Panel (the ones checkout charges)' }),
    offer: PublicOfferSchema,
  })
  .openapi('PublicConfig');

export type PublicConfig = z.infer<typeof PublicConfigSchema>;
