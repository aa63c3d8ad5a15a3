import { z } from 'zod';
import type { PaymentsConfig } from './modules/payments/payments.config.ts';

// The payment providers' settings (Stripe, PayPal, Ethereum). env.ts composes them and checks that
// each provider's keys are set together; it alone reads the environment.

export const paymentsEnv = z.object({
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_/, 'STRIPE_SECRET_KEY must be a Stripe secret key (sk_… or rk_…)')
    .optional(),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_/, 'STRIPE_WEBHOOK_SECRET must start with whsec_')
    .optional(),
  STRIPE_API_BASE: z.url('STRIPE_API_BASE must be a URL').optional(),
  PAYPAL_CLIENT_ID: z.string().min(1).optional(),
  PAYPAL_CLIENT_SECRET: z.string().min(1).optional(),
  PAYPAL_WEBHOOK_ID: z.string().min(1).optional(),
  PAYPAL_API_BASE: z.url('PAYPAL_API_BASE must be a URL').default('https://api-m.paypal.com'),
  ETH_RPC_URL: z.url('ETH_RPC_URL must be a URL').optional(),
  ETH_CONFIRMATIONS: z.coerce.number().int().min(1).max(1000).default(12),
});

export function paymentsConfigOf(e: z.infer<typeof paymentsEnv>): PaymentsConfig {
  return {
    stripe:
      e.STRIPE_SECRET_KEY && e.STRIPE_WEBHOOK_SECRET
        ? {
            secretKey: e.STRIPE_SECRET_KEY,
            webhookSecret: e.STRIPE_WEBHOOK_SECRET,
            apiBase: e.STRIPE_API_BASE,
          }
        : undefined,
    paypal:
      e.PAYPAL_CLIENT_ID && e.PAYPAL_CLIENT_SECRET && e.PAYPAL_WEBHOOK_ID
        ? {
            clientId: e.PAYPAL_CLIENT_ID,
            clientSecret: e.PAYPAL_CLIENT_SECRET,
            webhookId: e.PAYPAL_WEBHOOK_ID,
            apiBase: e.PAYPAL_API_BASE.replace(/\/$/, ''),
          }
        : undefined,
    ethereum: e.ETH_RPC_URL ? { rpcUrl: e.ETH_RPC_URL, confirmations: e.ETH_CONFIRMATIONS } : undefined,
  };
}
