import { createRoute, z } from '@hono/zod-openapi';

const redirect = (description: string) => ({
  description,
  headers: z.object({ location: z.string().openapi({ description: 'A result page of the web app' }) }),
});

export const paypalReturn = createRoute({
  method: 'get',
  path: '/api/payments/paypal/return',
  operationId: 'payments.paypalReturn',
  tags: ['Payments'],
  // The browser arrives from PayPal without a token; the unguessable order id and PayPal's ids identify it.
  security: [],
  summary: 'Where PayPal sends the buyer back after approving: confirms the payment and redirects',
  description:
    'One-off payments (Orders v2) are captured here; subscriptions are fetched and must be ACTIVE (APPROVED is accepted as pending: the webhook completes it). A repeated return changes nothing.',
  request: {
    query: z.object({
      order: z.string().optional().openapi({ description: "Berth's order id" }),
      token: z.string().optional().openapi({ description: 'The PayPal order id (one-off payments)' }),
      subscription_id: z.string().optional().openapi({ description: 'The PayPal subscription id' }),
      PayerID: z.string().optional(),
      ba_token: z.string().optional(),
    }),
  },
  responses: {
    302: redirect(
      'To /payment-success?tx=<capture or subscription id>, or /payment-error?reason=incomplete|server_error|other',
    ),
  },
});

export const paypalCancel = createRoute({
  method: 'get',
  path: '/api/payments/paypal/cancel',
  operationId: 'payments.paypalCancel',
  tags: ['Payments'],
  security: [],
  summary: 'Where PayPal sends the buyer who cancelled: the order is cancelled',
  request: {
    query: z.object({
      order: z.string().optional().openapi({ description: "Berth's order id" }),
      token: z.string().optional(),
    }),
  },
  responses: {
    302: redirect(
      'To /payment-cancelled?reason=cancelled, or /payment-error?reason=other for an unknown order',
    ),
  },
});
