import { createRoute } from '@hono/zod-openapi';
import { errorResponse, json } from '../../lib/openapi-schemas.ts';
import { requireUser } from '../../middleware/auth.ts';
import { PaymentSettingsSchema } from '../subscriptions/subscriptions.schemas.ts';
import { BillingHistorySchema } from './payments.schemas.ts';

export const settings = createRoute({
  method: 'get',
  path: '/api/payments/settings',
  operationId: 'payments.settings',
  tags: ['Payments'],
  summary: 'Currency, prices, yearly discounts and the payment methods that are enabled',
  security: [{ bearerAuth: [] }],
  middleware: requireUser,
  responses: {
    200: json(PaymentSettingsSchema, 'Billing settings, with the empty-state text when no method is enabled'),
    401: errorResponse('Not signed in'),
  },
});

export const billingHistory = createRoute({
  method: 'get',
  path: '/api/payments/billing-history',
  operationId: 'payments.billingHistory',
  tags: ['Payments'],
  summary: "The signed-in user's invoices, newest first",
  security: [{ bearerAuth: [] }],
  middleware: requireUser,
  responses: {
    200: json(BillingHistorySchema, 'Invoices (empty until a payment provider takes money)'),
    401: errorResponse('Not signed in'),
  },
});
