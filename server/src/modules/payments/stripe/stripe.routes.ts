import { createRoute, z } from '@hono/zod-openapi';
import { errorResponse, json } from '../../../lib/openapi-schemas.ts';
import { requireUser } from '../../../middleware/auth.ts';

/** POST /api/payments/stripe/portal: the signed-in user's way to Stripe's customer portal. */
export const portal = createRoute({
  method: 'post',
  path: '/api/payments/stripe/portal',
  operationId: 'payments.stripePortal',
  tags: ['Payments'],
  summary: "A short-lived link to Stripe's customer portal (cards, invoices, cancellation)",
  security: [{ bearerAuth: [] }],
  middleware: requireUser,
  responses: {
    200: json(z.object({ url: z.url() }).openapi('PortalSession'), 'Where to send the browser'),
    401: errorResponse('Not signed in'),
    409: errorResponse('No Stripe customer yet'),
    502: errorResponse('Stripe did not answer'),
  },
});
