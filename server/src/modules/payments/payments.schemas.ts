import { z } from '@hono/zod-openapi';

export const InvoiceSchema = z
  .object({
    id: z.uuid(),
    amount: z.number(),
    currency: z.string().openapi({ example: 'USD' }),
    description: z.string(),
    date: z.iso.datetime(),
    status: z.enum(['paid', 'open', 'void', 'uncollectible', 'refunded']),
    provider: z.enum(['stripe', 'paypal_business', 'paypal_standard', 'metamask']),
    downloadUrl: z.string().nullable(),
  })
  .openapi('Invoice');

export const BillingHistorySchema = z.object({ invoices: z.array(InvoiceSchema) }).openapi('BillingHistory');

export type Invoice = z.infer<typeof InvoiceSchema>;
export type BillingHistory = z.infer<typeof BillingHistorySchema>;
