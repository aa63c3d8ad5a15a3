import { z } from '@hono/zod-openapi';
import { PLAN_IDS } from './plan-rules.ts';

export const SubscriptionSchema = z
  .object({
    plan: z.enum(PLAN_IDS),
    planId: z.enum(PLAN_IDS),
    planLabel: z.string().openapi({ example: 'Starter' }),
    planDetails: z.object({ id: z.enum(PLAN_IDS), name: z.string(), price: z.number() }),
    status: z.enum(['trialing', 'active', 'past_due', 'canceled', 'expired']),
    standing: z.enum(['trial', 'active', 'inactive']),
    isTrialActive: z.boolean(),
    isSubscriptionActive: z.boolean(),
    isInactive: z.boolean(),
    trialEndsAt: z.iso.datetime().nullable(),
    cancelAtPeriodEnd: z.boolean(),
    maxInstances: z.int().openapi({ description: '-1 means unlimited' }),
    usedInstances: z.int(),
    instancesUsed: z.int(),
    billingCycle: z.enum(['monthly', 'yearly']).nullable(),
    interval: z.enum(['monthly', 'yearly']).nullable().openapi({ description: 'Same as billingCycle' }),
    nextBillingDate: z.iso.datetime().nullable(),
    nextBilling: z.iso.datetime().nullable().openapi({ description: 'Same as nextBillingDate' }),
    amount: z
      .number()
      .nullable()
      .openapi({ description: 'What one billing period costs, add-ons included (null without a paid plan)' }),
    priceTotal: z.number().nullable().openapi({ description: 'Same as amount' }),
    amountTotal: z.number().nullable().openapi({ description: 'Same as amount' }),
    total: z.number().nullable().openapi({ description: 'Same as amount' }),
    price: z.number().nullable().openapi({ description: 'Same as amount' }),
    currency: z.string().openapi({ example: 'USD' }),
    currencySymbol: z.string().openapi({ example: '$' }),
    provider: z
      .enum(['stripe', 'paypal_business', 'paypal_standard', 'metamask', 'manual'])
      .nullable()
      .openapi({
        description: 'Who bills the current period (manual: granted by an admin); null during the trial',
      }),
    addonInstances: z.int().openapi({ description: 'Additional instances on Starter' }),
  })
  .openapi('Subscription');

const MethodSchema = z.object({ enabled: z.boolean() });

const PricesSchema = z
  .object({ starter: z.number(), pro: z.number(), addonInstance: z.number() })
  .openapi({ description: 'Monthly prices' });

const MethodsSchema = z.object({
  stripe: MethodSchema,
  paypalBusiness: MethodSchema,
  paypalStandard: MethodSchema,
  metamask: MethodSchema.extend({
    receiverAddress: z.string().nullable(),
    chainId: z.string().nullable(),
  }),
});

export const PaymentSettingsSchema = z
  .object({
    currency: z.string().openapi({ example: 'USD' }),
    currencySymbol: z.string().openapi({ example: '$' }),
    prices: PricesSchema,
    yearlyDiscounts: z
      .object({ starter: z.number(), pro: z.number() })
      .openapi({ description: 'Share taken off twelve monthly payments when paying yearly' }),
    methods: MethodsSchema,
    emptyMessage: z
      .string()
      .nullable()
      .openapi({ description: 'The empty-state text when no payment method is enabled' }),
  })
  .openapi('PaymentSettings');

export const SubscriptionStatusSchema = z
  .object({
    subscription: SubscriptionSchema,
    currency: z.string(),
    prices: PricesSchema,
    methods: MethodsSchema,
  })
  .openapi('SubscriptionStatus');

export const CanCreateInstanceSchema = z
  .object({
    canCreate: z.boolean(),
    reason: z.string().optional().openapi({ description: 'Why not, when canCreate is false' }),
  })
  .openapi('CanCreateInstance');

export type CanCreateInstance = z.infer<typeof CanCreateInstanceSchema>;
export type PaymentSettings = z.infer<typeof PaymentSettingsSchema>;
export type Subscription = z.infer<typeof SubscriptionSchema>;
export type SubscriptionStatus = z.infer<typeof SubscriptionStatusSchema>;
