import { z } from '@hono/zod-openapi';

const InvoiceSchema = z
  .object({
    id: z.uuid(),
    amount: z.number(),
    currency: z.string().openapi({ example: 'USD' }),
    description: z.string(),
    date: z.iso.datetime(),
    status: z.enum(['paid', 'open', 'void', 'uncollectible', 'refunded']),
    refundedAmount: z.number().openapi({
      description: "Refunded so far (partial refunds add up); equal to amount once the status is 'refunded'",
    }),
    provider: z.enum(['stripe', 'paypal_business', 'paypal_standard', 'metamask']),
    downloadUrl: z
      .string()
      .nullable()
      .openapi({ description: "The provider's hosted invoice, or a signed link (1 hour) to Berth's own" }),
  })
  .openapi('Invoice');

export const BillingHistorySchema = z.object({ invoices: z.array(InvoiceSchema) }).openapi('BillingHistory');

const CheckoutProviderSchema = z
  .enum(['stripe', 'paypal_business', 'paypal_standard'], {
    error: 'provider must be stripe, paypal_business or paypal_standard',
  })
  .openapi({ description: 'MetaMask payments use POST /api/payments/metamask' });

export const CreatePaymentRequestSchema = z
  .union([
    z.object({
      purchaseType: z.literal('addon_instance'),
      provider: CheckoutProviderSchema,
    }),
    z.object({
      plan: z.enum(['starter', 'pro'], { error: 'plan must be starter or pro' }),
      billingCycle: z.enum(['monthly', 'yearly'], { error: 'billingCycle must be monthly or yearly' }),
      provider: CheckoutProviderSchema,
    }),
  ])
  .openapi('CreatePaymentRequest', {
    description: 'Either an additional instance for an active Starter plan, or a plan and billing cycle',
  });

export const CreatePaymentResultSchema = z
  .object({
    redirectUrl: z
      .url()
      .openapi({ description: "The provider's page (or a result page) to send the browser to" }),
    paypalUrl: z.url().optional().openapi({ description: 'The same URL, for PayPal payments' }),
  })
  .openapi('CreatePaymentResult');

export const CancelAtPeriodEndRequestSchema = z
  .object({ cancelAtPeriodEnd: z.boolean() })
  .openapi('CancelAtPeriodEndRequest');

const AdminMethodSchema = z.object({
  enabled: z.boolean().openapi({ description: "The admin's switch" }),
  configured: z
    .boolean()
    .openapi({ description: 'Whether the server has the keys (or receiver) the method needs' }),
  available: z.boolean().openapi({ description: 'Enabled and configured: users can pay with it' }),
});

const ChainIdSchema = z.enum(['0xaa36a7', '0x89'], {
  error: 'chainId must be 0xaa36a7 (Sepolia) or 0x89 (Polygon)',
});
const Price = z
  .number({ error: 'Prices must be numbers' })
  .positive('Prices must be more than 0')
  .max(100000, 'Prices must be at most 100000')
  .refine((n) => Math.abs(n * 100 - Math.round(n * 100)) < 1e-6, 'Prices have at most 2 decimals');

const BackupDays = z
  .number({ error: 'Backup days must be a whole number' })
  .int('Backup days must be a whole number')
  .min(1, 'Backups are kept at least 1 day')
  .max(365, 'Backups are kept at most 365 days');

export const AdminPaymentSettingsSchema = z
  .object({
    currency: z.enum(['USD', 'EUR', 'GBP']),
    prices: z.object({ starter: z.number(), pro: z.number(), addonInstance: z.number() }),
    backupDays: z.object({ starter: z.number().int(), pro: z.number().int() }).openapi({
      description: 'Days each plan keeps its instances’ backups (the trial keeps them like Starter)',
    }),
    methods: z.object({
      stripe: AdminMethodSchema,
      paypalBusiness: AdminMethodSchema,
      paypalStandard: AdminMethodSchema,
      metamask: AdminMethodSchema.extend({
        receiverAddress: z.string().nullable(),
        chainId: ChainIdSchema.nullable(),
      }),
    }),
  })
  .openapi('AdminPaymentSettings');

const Switch = z.object({ enabled: z.boolean() }).partial();

export const AdminPaymentSettingsUpdateSchema = z
  .object({
    currency: z.enum(['USD', 'EUR', 'GBP'], { error: 'currency must be USD, EUR or GBP' }),
    prices: z.object({ starter: Price, pro: Price, addonInstance: Price }).partial(),
    backupDays: z.object({ starter: BackupDays, pro: BackupDays }).partial(),
    methods: z
      .object({
        stripe: Switch,
        paypalBusiness: Switch,
        paypalStandard: Switch,
        metamask: Switch.extend({
          receiverAddress: z
            .string()
            .regex(/^0x[0-9a-fA-F]{40}$/, 'Receiver address must be 0x followed by 40 hex characters')
            .nullable()
            .optional(),
          chainId: ChainIdSchema.nullable().optional(),
        }),
      })
      .partial(),
  })
  .partial()
  .openapi('AdminPaymentSettingsUpdate');

export type Invoice = z.infer<typeof InvoiceSchema>;
export type BillingHistory = z.infer<typeof BillingHistorySchema>;
export type CreatePaymentRequest = z.infer<typeof CreatePaymentRequestSchema>;
export type CreatePaymentResult = z.infer<typeof CreatePaymentResultSchema>;
export type AdminPaymentSettings = z.infer<typeof AdminPaymentSettingsSchema>;
export type AdminPaymentSettingsUpdate = z.infer<typeof AdminPaymentSettingsUpdateSchema>;
