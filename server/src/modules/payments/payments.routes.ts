import { createRoute, z } from '@hono/zod-openapi';
import { errorResponse, json } from '../../lib/openapi-schemas.ts';
import { requireAdmin, requireUser } from '../../middleware/auth.ts';
import { PaymentSettingsSchema, SubscriptionSchema } from '../subscriptions/subscriptions.schemas.ts';
import {
  AdminPaymentSettingsSchema,
  AdminPaymentSettingsUpdateSchema,
  BillingHistorySchema,
  CancelAtPeriodEndRequestSchema,
  CreatePaymentRequestSchema,
  CreatePaymentResultSchema,
} from './payments.schemas.ts';

const bearer = [{ bearerAuth: [] }];

export const settings = createRoute({
  method: 'get',
  path: '/api/payments/settings',
  operationId: 'payments.settings',
  tags: ['Payments'],
  summary: 'Currency, prices, yearly discounts and the payment methods that are enabled',
  security: bearer,
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
  security: bearer,
  middleware: requireUser,
  responses: {
    200: json(BillingHistorySchema, 'Invoices with a download link each'),
    401: errorResponse('Not signed in'),
  },
});

export const createPayment = createRoute({
  method: 'post',
  path: '/api/payments/create-paypal-payment',
  operationId: 'payments.create',
  tags: ['Payments'],
  summary: "Starts a payment with Stripe or PayPal and answers the provider's page to redirect to",
  description:
    'Despite its name this starts every redirect payment (Stripe Checkout, PayPal). Access is granted only when the provider confirms the payment (webhook or return), never by this call.',
  security: bearer,
  middleware: requireUser,
  request: {
    body: { content: { 'application/json': { schema: CreatePaymentRequestSchema } }, required: true },
  },
  responses: {
    200: json(CreatePaymentResultSchema, 'Where to send the browser'),
    400: errorResponse('Invalid body'),
    401: errorResponse('Not signed in'),
    409: errorResponse('Method not available, add-on not allowed, or downgrade blocked (spec message)'),
    502: errorResponse('The provider failed: "Failed to create payment URL"'),
  },
});

export const cancelAtPeriodEnd = createRoute({
  method: 'put',
  path: '/api/subscriptions/cancel-at-period-end',
  operationId: 'subscriptions.setCancelAtPeriodEnd',
  tags: ['Subscriptions'],
  summary: 'Cancels renewal at the end of the paid period (true), or keeps renewing (false)',
  security: bearer,
  middleware: requireUser,
  request: {
    body: { content: { 'application/json': { schema: CancelAtPeriodEndRequestSchema } }, required: true },
  },
  responses: {
    200: json(SubscriptionSchema, 'The subscription after the change'),
    400: errorResponse('Invalid body'),
    401: errorResponse('Not signed in'),
    409: errorResponse('No active subscription'),
    502: errorResponse('The provider refused the change'),
  },
});

export const removeAddons = createRoute({
  method: 'delete',
  path: '/api/payments/addon-instance',
  operationId: 'payments.removeAddonInstances',
  tags: ['Payments'],
  summary: 'Removes the additional instances: back to plain Starter (1 instance, base price)',
  security: bearer,
  middleware: requireUser,
  responses: {
    200: json(SubscriptionSchema, 'The subscription after the change'),
    401: errorResponse('Not signed in'),
    409: errorResponse('No add-on, or more than 1 instance in use (delete instances first)'),
    502: errorResponse('The provider refused the change'),
  },
});

export const invoiceDownload = createRoute({
  method: 'get',
  path: '/api/payments/invoices/{id}/download',
  operationId: 'payments.invoiceDownload',
  tags: ['Payments'],
  summary: 'An invoice as printable HTML (the signed link from the billing history)',
  security: [],
  request: {
    params: z.object({ id: z.string() }),
    query: z.object({ token: z.string().min(1, 'token is required') }),
  },
  responses: {
    200: { content: { 'text/html': { schema: z.string() } }, description: 'The invoice' },
    400: errorResponse('No token'),
    401: errorResponse('Invalid or expired link'),
    404: errorResponse('No such invoice'),
  },
});

const WebhookAckSchema = z
  .object({ received: z.literal(true), duplicate: z.boolean() })
  .openapi('WebhookAck');

function webhookRoute(provider: 'stripe' | 'paypal', name: string, signature: string) {
  return createRoute({
    method: 'post',
    path: `/api/payments/webhooks/${provider}`,
    operationId: `payments.webhook${name}`,
    tags: ['Payments'],
    summary: `${name} webhook events (${signature})`,
    security: [],
    description: 'The body is read raw (its exact bytes are signed), so it is not described here.',
    responses: {
      200: json(WebhookAckSchema, 'Stored (duplicate: it had been received before and changed nothing)'),
      400: errorResponse('Signature missing or invalid'),
      404: errorResponse(`${name} is not configured on this server`),
      502: errorResponse(
        'The provider could not be reached to check the event (it is delivered again later)',
      ),
    },
  });
}

export const stripeWebhook = webhookRoute('stripe', 'Stripe', 'Stripe-Signature verified on the raw body');
export const paypalWebhook = webhookRoute('paypal', 'PayPal', 'verified with PayPal');

export const adminSettings = createRoute({
  method: 'get',
  path: '/api/admin/payment-settings',
  operationId: 'admin.paymentSettings',
  tags: ['Admin'],
  summary: 'Payment methods (switch, keys, availability), prices, currency, MetaMask receiver and network',
  security: bearer,
  middleware: requireAdmin,
  responses: {
    200: json(AdminPaymentSettingsSchema, 'The settings'),
    401: errorResponse('Not signed in'),
    403: errorResponse('Not an admin'),
  },
});

export const updateAdminSettings = createRoute({
  method: 'put',
  path: '/api/admin/payment-settings',
  operationId: 'admin.updatePaymentSettings',
  tags: ['Admin'],
  summary: 'Changes payment settings (only the fields given)',
  security: bearer,
  middleware: requireAdmin,
  request: {
    body: { content: { 'application/json': { schema: AdminPaymentSettingsUpdateSchema } }, required: true },
  },
  responses: {
    200: json(AdminPaymentSettingsSchema, 'The settings after the change'),
    400: errorResponse('Invalid settings (e.g. MetaMask enabled without a receiver)'),
    401: errorResponse('Not signed in'),
    403: errorResponse('Not an admin'),
  },
});
