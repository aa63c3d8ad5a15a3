import { z } from '@hono/zod-openapi';

export const PlanPriceSchema = z
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

export const PublicConfigSchema = z
  .object({
    turnstileSiteKey: z
      .string()
      .nullable()
      .openapi({ description: 'null: the bot check is off, hide the widget' }),
    oauthEnabled: z.boolean(),
    plans: z.object({
      currency: z.string().openapi({ example: 'USD' }),
      currencySymbol: z.string().openapi({ example: '$' }),
      starter: PlanPriceSchema,
      pro: PlanPriceSchema,
      addonInstance: z
        .number()
        .openapi({ description: 'Monthly price of one additional instance (Starter only)' }),
    }),
  })
  .openapi('PublicConfig');

export type PublicConfig = z.infer<typeof PublicConfigSchema>;
