/** Provider keys and endpoints (from the environment). A provider without its keys is off. */
export interface StripeConfig {
  secretKey: string;
  webhookSecret: string;
  /** Another Stripe API server (tests, staging), e.g. http://127.0.0.1:12111; default api.stripe.com. */
  apiBase?: string;
}

export interface PayPalConfig {
  clientId: string;
  clientSecret: string;
  /** The webhook id PayPal gave when the endpoint was registered (needed to verify events). */
  webhookId: string;
  /** https://api-m.paypal.com (live), https://api-m.sandbox.paypal.com, or a test server. */
  apiBase: string;
}

export interface EthereumConfig {
  /** JSON-RPC endpoint of the chain MetaMask payments go to; without it transactions wait for manual checks. */
  rpcUrl: string;
  /** Blocks on top of the transaction's before it counts as verified. */
  confirmations: number;
}

export interface PaymentsConfig {
  stripe?: StripeConfig;
  paypal?: PayPalConfig;
  ethereum?: EthereumConfig;
}
