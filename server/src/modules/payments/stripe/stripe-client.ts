import Stripe from 'stripe';
import type { StripeConfig } from '../payments.config.ts';

/** The Stripe SDK pointed at api.stripe.com or at `apiBase` (a test or staging server). */
export function createStripeClient(config: StripeConfig): Stripe {
  const base = config.apiBase ? new URL(config.apiBase) : undefined;
  return new Stripe(config.secretKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    appInfo: { name: 'Berth' },
    ...(base && {
      host: base.hostname,
      port: base.port || (base.protocol === 'https:' ? 443 : 80),
      protocol: base.protocol === 'https:' ? 'https' : 'http',
    }),
  });
}

type PriceKind = 'plan' | 'addon_instance';

export interface PriceFacts {
  kind: PriceKind;
  plan: 'starter' | 'pro';
  cycle: 'monthly' | 'yearly';
}

const PRODUCTS: Record<'starter' | 'pro' | 'addon_instance', { id: string; name: string }> = {
  starter: { id: 'berth_starter', name: 'Berth Starter' },
  pro: { id: 'berth_pro', name: 'Berth Pro' },
  addon_instance: { id: 'berth_additional_instance', name: 'Berth additional instance' },
};

/** What a Price of ours is for, from its metadata; undefined for prices Berth did not create. */
export function priceFacts(price: Pick<Stripe.Price, 'metadata'>): PriceFacts | undefined {
  const m = price.metadata ?? {};
  const kind = m.berth_kind;
  const plan = m.berth_plan;
  const cycle = m.berth_cycle;
  if ((kind !== 'plan' && kind !== 'addon_instance') || (plan !== 'starter' && plan !== 'pro'))
    return undefined;
  if (cycle !== 'monthly' && cycle !== 'yearly') return undefined;
  return { kind, plan, cycle };
}

/**
 * The Stripe catalogue: one Product per plan and one for the additional instance, and a recurring Price
 * per (product, cycle, amount, currency), found by its lookup key or created once. A price change in the
 * admin settings makes a new Price; existing subscriptions keep theirs until they change.
 */
export function createStripeCatalog(stripe: Stripe) {
  const cache = new Map<string, Promise<string>>();

  async function ensureProduct(key: keyof typeof PRODUCTS): Promise<string> {
    const { id, name } = PRODUCTS[key];
    try {
      return (await stripe.products.retrieve(id)).id;
    } catch (err) {
      if (!(err instanceof Stripe.errors.StripeInvalidRequestError) || err.statusCode !== 404) throw err;
      return (await stripe.products.create({ id, name }, { idempotencyKey: `product:${id}` })).id;
    }
  }

  async function findOrCreate(facts: PriceFacts, amount: number, currency: string): Promise<string> {
    const cents = Math.round(amount * 100);
    const cur = currency.toLowerCase();
    const product = facts.kind === 'addon_instance' ? 'addon_instance' : facts.plan;
    const lookupKey = `berth_${product}_${facts.cycle}_${cents}_${cur}`;
    const found = await stripe.prices.list({ lookup_keys: [lookupKey], active: true, limit: 1 });
    if (found.data[0]) return found.data[0].id;
    const created = await stripe.prices.create(
      {
        product: await ensureProduct(product),
        unit_amount: cents,
        currency: cur,
        recurring: { interval: facts.cycle === 'yearly' ? 'year' : 'month' },
        lookup_key: lookupKey,
        metadata: { berth_kind: facts.kind, berth_plan: facts.plan, berth_cycle: facts.cycle },
      },
      { idempotencyKey: `price:${lookupKey}` },
    );
    return created.id;
  }

  return {
    /** The id of the recurring Price for one period of `facts` at `amount` (in `currency`). */
    priceId(facts: PriceFacts, amount: number, currency: string): Promise<string> {
      const key = `${facts.kind}:${facts.plan}:${facts.cycle}:${amount}:${currency}`;
      let id = cache.get(key);
      if (!id) {
        id = findOrCreate(facts, amount, currency);
        // A failure is not remembered: the next attempt asks Stripe again.
        id.catch(() => cache.delete(key));
        cache.set(key, id);
      }
      return id;
    },
  };
}

export type StripeCatalog = ReturnType<typeof createStripeCatalog>;
