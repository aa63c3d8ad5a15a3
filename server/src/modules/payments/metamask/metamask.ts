import { createRouter } from '../../../lib/create-router.ts';
import type { PaymentsConfig } from '../payments.config.ts';
import type { ProviderDeps } from '../provider-contract.ts';
import { metaMaskContext } from './metamask.context.ts';
import * as routes from './metamask.routes.ts';
import { createMetaMaskService } from './metamask.service.ts';
import { createMetaMaskReview } from './metamask-review.service.ts';

export interface MetaMaskModule {
  /** The user's MetaMask payment routes and the admin review routes. */
  router: ReturnType<typeof createRouter>;
  /** Checks every submitted transaction on chain (when an RPC URL is configured); answers how many changed. */
  verifyPending(): Promise<number>;
}

/**
 * MetaMask, wired: one shared context (metamask.context.ts: the order lock and the on-chain check) for the
 * customer's orders and support's review.
 */
export function createMetaMask(config: PaymentsConfig['ethereum'], deps: ProviderDeps): MetaMaskModule {
  const ctx = metaMaskContext(config, deps);
  const metamask = createMetaMaskService(ctx, deps);
  const review = createMetaMaskReview(ctx, deps);
  const router = createRouter()
    .openapi(routes.createOrder, async (c) =>
      c.json(await metamask.createOrder(c.var.user.id, c.req.valid('json')), 201),
    )
    .openapi(routes.submitTransaction, async (c) =>
      c.json(
        await metamask.submitTransaction(c.var.user.id, c.req.valid('param').id, c.req.valid('json')),
        201,
      ),
    )
    .openapi(routes.listOwn, async (c) => c.json({ orders: await metamask.listOwn(c.var.user.id) }, 200))
    .openapi(routes.getOwn, async (c) =>
      c.json(await metamask.getOwn(c.var.user.id, c.req.valid('param').id), 200),
    )
    .openapi(routes.adminList, async (c) =>
      c.json(
        {
          orders: await review.adminList(c.req.valid('query').status),
          onChainChecks: ctx.onChainChecks,
        },
        200,
      ),
    )
    .openapi(routes.adminVerify, async (c) => c.json(await review.verifyNow(c.req.valid('param').id), 200))
    .openapi(routes.adminApprove, async (c) => c.json(await review.approve(c.req.valid('param').id), 200))
    .openapi(routes.adminReject, async (c) =>
      c.json(await review.reject(c.req.valid('param').id, c.req.valid('json').reason), 200),
    );
  return { router, verifyPending: ctx.verifyPending };
}
