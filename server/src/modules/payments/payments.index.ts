import type { HonoRequest } from 'hono';
import { createRouter } from '../../lib/create-router.ts';
import { NotFoundError } from '../../lib/errors.ts';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import * as routes from './payments.routes.ts';
import type { PaymentsService } from './payments.service.ts';
import type { WebhookReceiver } from './provider-contract.ts';

export interface PaymentsRouterDeps {
  payments: PaymentsService;
  subscriptions: Pick<SubscriptionsService, 'get'>;
  webhooks: { stripe?: WebhookReceiver; paypal?: WebhookReceiver };
}

export function createPaymentsRouter({ payments, subscriptions, webhooks }: PaymentsRouterDeps) {
  const receive = async (receiver: WebhookReceiver | undefined, name: string, req: HonoRequest) => {
    if (!receiver) throw new NotFoundError(`${name} is not configured on this server`);
    return receiver.receive(await req.text(), req.raw.headers);
  };
  return createRouter()
    .openapi(routes.settings, async (c) => c.json(await payments.settings(), 200))
    .openapi(routes.billingHistory, async (c) => c.json(await payments.billingHistory(c.var.user.id), 200))
    .openapi(routes.createPayment, async (c) =>
      c.json(await payments.createPayment(c.var.user.id, c.req.valid('json')), 200),
    )
    .openapi(routes.cancelAtPeriodEnd, async (c) => {
      await payments.setCancelAtPeriodEnd(c.var.user.id, c.req.valid('json').cancelAtPeriodEnd);
      return c.json(await subscriptions.get(c.var.user.id), 200);
    })
    .openapi(routes.removeAddons, async (c) => {
      await payments.removeAddons(c.var.user.id);
      return c.json(await subscriptions.get(c.var.user.id), 200);
    })
    .openapi(routes.invoiceDownload, async (c) =>
      c.html(await payments.invoiceHtml(c.req.valid('param').id, c.req.valid('query').token), 200),
    )
    .openapi(routes.stripeWebhook, async (c) => {
      const { duplicate } = await receive(webhooks.stripe, 'Stripe', c.req);
      return c.json({ received: true as const, duplicate }, 200);
    })
    .openapi(routes.paypalWebhook, async (c) => {
      const { duplicate } = await receive(webhooks.paypal, 'PayPal', c.req);
      return c.json({ received: true as const, duplicate }, 200);
    })
    .openapi(routes.adminSettings, async (c) => c.json(await payments.adminSettings(), 200))
    .openapi(routes.updateAdminSettings, async (c) =>
      c.json(await payments.updateAdminSettings(c.req.valid('json')), 200),
    );
}
