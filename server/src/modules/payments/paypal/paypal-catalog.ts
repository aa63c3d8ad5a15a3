import { createHash } from 'node:crypto';
import type { PayPalClient } from './paypal-client.ts';

// PayPal's catalog: the Berth product and one billing plan per price, which PayPal subscriptions bill by.

export interface CatalogKey {
  /** e.g. 'Starter (monthly)'. */
  description: string;
  cycle: 'monthly' | 'yearly';
  amount: number;
  currency: string;
}

const BERTH_PRODUCT_ID = 'BERTH-HOSTING';

/**
 * Billing plans, one per (purchase, cycle, price, currency): looked up by name on PayPal once (an earlier
 * process may have made them), created when missing, and kept in memory.
 */
export function createPayPalCatalog(client: PayPalClient) {
  let known: Promise<Map<string, string>> | undefined;
  const creating = new Map<string, Promise<string>>();

  async function load(): Promise<Map<string, string>> {
    if (!(await client.getProduct(BERTH_PRODUCT_ID))) {
      await client.createProduct({
        id: BERTH_PRODUCT_ID,
        name: 'Berth hosting',
        type: 'SERVICE',
        category: 'SOFTWARE',
      });
      return new Map();
    }
    const plans = await client.listPlans(BERTH_PRODUCT_ID);
    return new Map(plans.filter((p) => p.status === 'ACTIVE').map((p) => [p.name, p.id]));
  }

  return {
    async planId(key: CatalogKey): Promise<string> {
      const amount = key.amount.toFixed(2);
      const name = `Berth ${key.description} ${amount} ${key.currency}`;
      known ??= load().catch((err) => {
        known = undefined;
        throw err;
      });
      const plans = await known;
      const found = plans.get(name);
      if (found) return found;
      let promise = creating.get(name);
      if (!promise) {
        promise = client
          .createPlan(
            {
              product_id: BERTH_PRODUCT_ID,
              name,
              status: 'ACTIVE',
              billing_cycles: [
                {
                  frequency: { interval_unit: key.cycle === 'yearly' ? 'YEAR' : 'MONTH', interval_count: 1 },
                  tenure_type: 'REGULAR',
                  sequence: 1,
                  total_cycles: 0,
                  pricing_scheme: { fixed_price: { value: amount, currency_code: key.currency } },
                },
              ],
              payment_preferences: {
                auto_bill_outstanding: true,
                setup_fee_failure_action: 'CANCEL',
                payment_failure_threshold: 1,
              },
            },
            `plan-${createHash('sha256').update(name).digest('hex').slice(0, 32)}`,
          )
          .then((plan) => {
            plans.set(name, plan.id);
            return plan.id;
          })
          .finally(() => creating.delete(name));
        creating.set(name, promise);
      }
      return promise;
    },
  };
}
