// STUB: replaced by the MetaMask implementation.
import { createRouter } from '../../../lib/create-router.ts';
import type { PaymentsConfig } from '../payments.config.ts';
import type { ProviderDeps } from '../providers.ts';

export interface MetaMaskModule {
  /** POST /api/payments/metamask (user) and the admin review routes. */
  router: ReturnType<typeof createRouter>;
  /** Checks every submitted transaction on chain (when an RPC URL is configured); answers how many changed. */
  verifyPending(): Promise<number>;
}

export function createMetaMask(config: PaymentsConfig['ethereum'], deps: ProviderDeps): MetaMaskModule {
  void config;
  void deps;
  return { router: createRouter(), verifyPending: async () => 0 };
}
