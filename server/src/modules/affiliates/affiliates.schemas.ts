import { z } from '@hono/zod-openapi';

// Shapes and messages of the affiliate calls. Amounts in answers are in currency units
// (12.34); the database keeps minor units.

const text = (max: number) => z.string().trim().max(max);
const optionalText = (max: number) => text(max).optional();

const BankDetailsSchema = z
  .object({
    accountName: optionalText(120),
    accountNumber: optionalText(64),
    bankName: optionalText(120),
    swiftCode: optionalText(32),
    iban: optionalText(64),
    /** The apply form's free text. */
    details: optionalText(1000),
  })
  .openapi('AffiliateBankDetails');

const CryptoWalletSchema = z
  .object({
    address: optionalText(200),
    network: optionalText(60),
    notes: optionalText(500),
  })
  .openapi('AffiliateCryptoWallet');

const PaymentMethod = z.enum(['paypal', 'bank', 'crypto'], { error: 'Please choose a payment method' });

const Website = z
  .string()
  .trim()
  .max(300)
  .refine((v) => v === '' || /^https?:\/\/\S+\.\S+/i.test(v), 'Website must be a URL')
  .optional();

/** Payout details; which one is required depends on the method (checked by the service). */
export const PaymentDetailsBodySchema = z
  .object({
    paymentMethod: PaymentMethod,
    paypalEmail: optionalText(254),
    /** An object (register form) or free text (apply form). */
    bankDetails: z.union([BankDetailsSchema, text(1000)]).optional(),
    cryptoWallet: CryptoWalletSchema.optional(),
  })
  .openapi('AffiliatePaymentDetailsRequest');

export const AffiliateRegisterBodySchema = PaymentDetailsBodySchema.extend({ website: Website }).openapi(
  'AffiliateRegisterRequest',
);

export const ReferralBodySchema = z
  .object({
    referralCode: z
      .string()
      .trim()
      .transform((v) => v.toUpperCase())
      .pipe(
        z
          .string()
          .regex(
            /^[A-Z0-9_-]{3,32}$/,
            'Referral code must be 3 to 32 letters, digits, hyphens or underscores',
          ),
      )
      .optional(),
    referralName: optionalText(80),
    referralNumber: optionalText(40),
    website: Website,
  })
  .openapi('AffiliateReferralRequest');

export const AffiliateProfileSchema = z
  .object({
    id: z.string(),
    referralCode: z.string(),
    referralLink: z.string(),
    homepageLink: z.string(),
    referralName: z.string().nullable(),
    referralNumber: z.string().nullable(),
    website: z.string().nullable(),
    status: z.enum(['active', 'suspended']),
    paymentMethod: z.enum(['paypal', 'bank', 'crypto']),
    paypalEmail: z.string().nullable(),
    bankDetails: BankDetailsSchema.nullable(),
    cryptoWallet: CryptoWalletSchema.nullable(),
    createdAt: z.iso.datetime(),
  })
  .openapi('AffiliateProfile');

export const AffiliateRegisterResultSchema = z
  .object({ ok: z.literal(true), message: z.string(), affiliate: AffiliateProfileSchema })
  .openapi('AffiliateRegisterResult');

const Change = z
  .number()
  .nullable()
  .openapi({ description: 'Percent change of this month against last month; null: nothing last month' });

export const DashboardSchema = z
  .object({
    currency: z.string(),
    totalEarnings: z.number().openapi({ description: 'Commissions less clawbacks and adjustments, ever' }),
    pendingEarnings: z.number().openapi({ description: 'The ledger balance: earned, not yet paid out' }),
    availableBalance: z
      .number()
      .openapi({ description: 'The part past its 30-day hold: what a payout may take' }),
    heldEarnings: z.number().openapi({ description: 'The part still in its 30-day hold' }),
    totalReferrals: z.number().int(),
    activeReferrals: z.number().int().openapi({ description: 'Referred users who paid a subscription' }),
    totalClicks: z.number().int(),
    conversionRate: z
      .number()
      .openapi({ description: 'activeReferrals / totalReferrals, percent, one decimal' }),
    referralCode: z.string(),
    referralLink: z.string(),
    homepageLink: z.string(),
    referralName: z.string().nullable(),
    referralNumber: z.string().nullable(),
    changes: z.object({
      totalEarnings: Change,
      pendingEarnings: Change,
      totalReferrals: Change,
      totalClicks: Change,
      conversionRate: Change.openapi({
        description: 'Percentage points against the rate at the end of last month',
      }),
    }),
  })
  .openapi('AffiliateDashboard');

export const StatsQuerySchema = z.object({
  year: z.coerce
    .number({ error: 'Invalid year' })
    .int('Invalid year')
    .min(2000, 'Invalid year')
    .max(2100, 'Invalid year')
    .optional(),
});

const MonthSchema = z.object({
  month: z.number().int().min(1).max(12),
  clicks: z.number().int(),
  referrals: z.number().int(),
  activeReferrals: z.number().int(),
  earnings: z.number(),
});

export const StatsSchema = z
  .object({
    year: z.number().int(),
    currency: z.string(),
    months: z.array(MonthSchema),
    totals: MonthSchema.omit({ month: true }),
  })
  .openapi('AffiliateMonthlyStats');

export const ReferralResultSchema = z
  .object({
    referralCode: z.string(),
    referralName: z.string().nullable(),
    referralNumber: z.string().nullable(),
    website: z.string().nullable(),
    referralLink: z.string(),
    message: z.string(),
  })
  .openapi('AffiliateReferralResult');

export const GenerateCodeQuerySchema = z.object({
  force: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v === 'true'),
});

export const GeneratedCodeSchema = z
  .object({ referralCode: z.string(), referralLink: z.string(), homepageLink: z.string() })
  .openapi('AffiliateGeneratedCode');

export const PayoutSchema = z
  .object({
    id: z.string(),
    amount: z.number(),
    currency: z.string(),
    status: z.enum(['pending', 'completed', 'failed']),
    method: z.string(),
    transactionId: z.string().nullable(),
    failureReason: z.string().nullable(),
    createdAt: z.iso.datetime(),
    requestedAt: z.iso.datetime(),
    processedAt: z.iso.datetime().nullable(),
  })
  .openapi('AffiliatePayout');

export const PayoutListSchema = z
  .object({
    currency: z.string(),
    minimumPayout: z.number(),
    pendingEarnings: z.number(),
    availableBalance: z.number(),
    payouts: z.array(PayoutSchema),
  })
  .openapi('AffiliatePayoutList');

export const PayoutRequestSchema = z
  .object({
    amount: z.union([z.number(), z.string()]).openapi({ description: 'In currency units (50 = $50.00)' }),
  })
  .openapi('AffiliatePayoutRequest');

export const PayoutRequestResultSchema = z
  .object({
    payout: PayoutSchema,
    pendingEarnings: z.number(),
    availableBalance: z.number(),
    message: z.string(),
  })
  .openapi('AffiliatePayoutRequestResult');

export const TrackClickParamsSchema = z.object({
  code: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .openapi({ param: { name: 'code', in: 'path' } }),
});

export const TrackClickResultSchema = z
  .object({
    tracked: z.boolean().openapi({ description: 'false: a bot, or the affiliate clicking their own link' }),
    counted: z.boolean().openapi({ description: "false: this visitor's click of today was already counted" }),
  })
  .openapi('AffiliateTrackClickResult');

export const AdminPayoutsQuerySchema = z.object({
  status: z.enum(['pending', 'completed', 'failed']).optional(),
});

export const AdminPayoutIdParamsSchema = z.object({
  id: z.uuid('Payout not found').openapi({ param: { name: 'id', in: 'path' } }),
});

const AdminPayoutSchema = PayoutSchema.extend({
  affiliate: z.object({
    id: z.string(),
    userId: z.string(),
    referralCode: z.string(),
    username: z.string(),
    email: z.string(),
  }),
  paymentMethod: z.enum(['paypal', 'bank', 'crypto']),
  paypalEmail: z.string().nullable(),
  bankDetails: BankDetailsSchema.nullable(),
  cryptoWallet: CryptoWalletSchema.nullable(),
}).openapi('AdminAffiliatePayout');

export const AdminPayoutListSchema = z
  .object({ items: z.array(AdminPayoutSchema) })
  .openapi('AdminAffiliatePayoutList');

export const CompletePayoutBodySchema = z
  .object({
    transactionId: z
      .string({ error: 'Transaction ID is required' })
      .trim()
      .min(1, 'Transaction ID is required')
      .max(200, 'Transaction ID is too long'),
  })
  .openapi('AdminCompleteAffiliatePayout');

export const FailPayoutBodySchema = z
  .object({ reason: z.string().trim().max(500, 'Reason is too long').optional() })
  .openapi('AdminFailAffiliatePayout');

export type PaymentDetailsBody = z.infer<typeof PaymentDetailsBodySchema>;
export type AffiliateRegisterBody = z.infer<typeof AffiliateRegisterBodySchema>;
export type ReferralBody = z.infer<typeof ReferralBodySchema>;
export type AffiliateProfile = z.infer<typeof AffiliateProfileSchema>;
export type Payout = z.infer<typeof PayoutSchema>;
export type AdminPayout = z.infer<typeof AdminPayoutSchema>;
export type BankDetails = z.infer<typeof BankDetailsSchema>;
export type CryptoWallet = z.infer<typeof CryptoWalletSchema>;
