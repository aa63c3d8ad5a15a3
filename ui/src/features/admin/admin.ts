import type {
  AdminMetaMaskOrder,
  AdminPaymentSettings,
  AdminUser,
  MetaMaskOrderStatus,
} from '../../api/admin.queries.ts';

/** Texts and pure helpers of the admin panel (spec platform-area "Admin panel"). */

export const CURRENCIES = ['USD', 'EUR', 'GBP'] as const;
export type Currency = (typeof CURRENCIES)[number];

export const CURRENCY_SYMBOL: Record<Currency, string> = { USD: '$', EUR: '€', GBP: '£' };

export type MethodKey = keyof AdminPaymentSettings['methods'];
export type ChainId = '0xaa36a7' | '0x89';

export interface MethodInfo {
  key: MethodKey;
  label: string;
  description: string;
  /** The server settings a method needs before it can be offered; none for MetaMask (its receiver is set here). */
  envVars: readonly string[];
}

export const METHODS: readonly MethodInfo[] = [
  {
    key: 'stripe',
    label: 'Stripe',
    description: 'Cards through Stripe Checkout, with renewals and the customer portal.',
    envVars: ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'],
  },
  {
    key: 'paypalBusiness',
    label: 'PayPal Business',
    description: 'PayPal subscriptions that renew on their own.',
    envVars: ['PAYPAL_CLIENT_ID', 'PAYPAL_CLIENT_SECRET', 'PAYPAL_WEBHOOK_ID'],
  },
  {
    key: 'paypalStandard',
    label: 'PayPal Standard',
    description: 'One PayPal payment per period.',
    envVars: ['PAYPAL_CLIENT_ID', 'PAYPAL_CLIENT_SECRET', 'PAYPAL_WEBHOOK_ID'],
  },
  {
    key: 'metamask',
    label: 'MetaMask',
    description: 'A zero-value transaction from the user’s wallet that support reviews and approves by hand.',
    envVars: [],
  },
];

export type MethodStatus = 'available' | 'needsKeys' | 'off';

/** Available when users can pay with it; Needs keys while the server lacks them; Off otherwise. */
export function methodStatus(method: {
  enabled: boolean;
  configured: boolean;
  available: boolean;
}): MethodStatus {
  if (method.available) return 'available';
  if (!method.configured) return 'needsKeys';
  return 'off';
}

export const NETWORKS: readonly { chainId: ChainId; label: string; explorer: string }[] = [
  { chainId: '0xaa36a7', label: 'Sepolia (test network)', explorer: 'https://sepolia.etherscan.io' },
  { chainId: '0x89', label: 'Polygon', explorer: 'https://polygonscan.com' },
];

export const networkLabel = (chainId: string) =>
  NETWORKS.find((network) => network.chainId === chainId)?.label ?? chainId;

/** The block explorer page of a transaction, or null on a network the app does not know. */
export function explorerTxUrl(chainId: string, txHash: string): string | null {
  const network = NETWORKS.find((candidate) => candidate.chainId === chainId);
  return network ? `${network.explorer}/tx/${txHash}` : null;
}

/** '0x1234…cdef': the start and the end of a hash or an address. */
export const shortHash = (hash: string) =>
  hash.length > 14 ? `${hash.slice(0, 8)}…${hash.slice(-6)}` : hash;

const RECEIVER_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const RECEIVER_ADDRESS_ERROR = 'Receiver address must be 0x followed by 40 hex characters';

/** The message of a receiver address field: empty is allowed (no receiver), anything else must be an address. */
export function receiverAddressError(value: string): string | null {
  const trimmed = value.trim();
  return trimmed === '' || RECEIVER_ADDRESS.test(trimmed) ? null : RECEIVER_ADDRESS_ERROR;
}

export const PRICE_FIELDS = [
  { key: 'starter', label: 'Starter (per month)' },
  { key: 'pro', label: 'Pro (per month)' },
  { key: 'addonInstance', label: 'Additional instance (per month)' },
] as const;
export type PriceKey = (typeof PRICE_FIELDS)[number]['key'];

/** A price must be a positive amount up to 100,000. */
export function priceError(value: string): string | null {
  const amount = Number(value);
  if (value.trim() === '' || !Number.isFinite(amount)) return 'Enter a price';
  if (amount <= 0) return 'The price must be more than 0';
  if (amount > 100_000) return 'The price must be at most 100000';
  return null;
}

/** Days each plan keeps its instances' backups (the trial keeps them like Starter). */
export const BACKUP_DAYS_FIELDS = [
  { key: 'starter', label: 'Starter keeps backups (days)' },
  { key: 'pro', label: 'Pro keeps backups (days)' },
] as const;
export type BackupDaysKey = (typeof BACKUP_DAYS_FIELDS)[number]['key'];

/** The server's rule: a whole number of days from 1 to 365. */
export function backupDaysError(value: string): string | null {
  const days = Number(value);
  if (value.trim() === '' || !Number.isInteger(days)) return 'Backup days must be a whole number';
  if (days < 1) return 'Backups are kept at least 1 day';
  if (days > 365) return 'Backups are kept at most 365 days';
  return null;
}

export const ZERO_VALUE_NOTICE =
  'A MetaMask payment is a zero-value transaction: it proves that the wallet owner meant to order, not that money was paid. Check that the payment arrived before you approve it.';

export const METAMASK_SETTINGS_NOTICE =
  'Users pay with a zero-value transaction to this address: it proves intent, not payment. Each payment waits for your review under “MetaMask payments to review”.';

export const ORDER_STATUS_LABEL: Record<MetaMaskOrderStatus, string> = {
  pending: 'Waiting for transaction',
  submitted: 'Submitted',
  verified: 'Checks passed',
  completed: 'Approved',
  rejected: 'Rejected',
};

/** 'all' lists every order that got a transaction. */
export type OrderStatusFilter = MetaMaskOrderStatus | 'all';

export const ORDER_STATUS_FILTERS: readonly { value: OrderStatusFilter; label: string }[] = [
  { value: 'all', label: 'All with a transaction' },
  { value: 'submitted', label: 'Submitted' },
  { value: 'verified', label: 'Checks passed' },
  { value: 'completed', label: 'Approved' },
  { value: 'rejected', label: 'Rejected' },
  { value: 'pending', label: 'Waiting for transaction' },
];

/** Orders support can still approve or reject. */
export const isOpenOrder = (order: Pick<AdminMetaMaskOrder, 'status' | 'txHash'>) =>
  (order.status === 'submitted' || order.status === 'verified') && order.txHash !== null;

export type VerificationState = AdminMetaMaskOrder['verificationState'];

export const VERIFICATION_LABEL: Record<VerificationState, string> = {
  not_checked: 'Not checked',
  waiting: 'Waiting',
  verified: 'Verified on chain',
  problems: 'Problems found',
};

export const VERIFICATION_COLOR: Record<VerificationState, 'default' | 'info' | 'success' | 'error'> = {
  not_checked: 'default',
  waiting: 'info',
  verified: 'success',
  problems: 'error',
};

/** What the order buys: 'Pro · yearly' or 'Additional instance · monthly'. */
export function orderPurchase(order: Pick<AdminMetaMaskOrder, 'kind' | 'plan' | 'billingCycle'>): string {
  const what = order.kind === 'addon_instance' ? 'Additional instance' : PLAN_LABEL[order.plan];
  return `${what} · ${order.billingCycle}`;
}

export function formatAmount(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency}`;
  }
}

export const PLAN_LABEL: Record<AdminUser['plan'], string> = { free: 'Free', starter: 'Starter', pro: 'Pro' };

export const USER_STANDING_LABEL: Record<AdminUser['standing'], string> = {
  trial: 'Trial',
  active: 'Active',
  inactive: 'Inactive',
};

export const USER_STANDING_COLOR: Record<AdminUser['standing'], 'info' | 'success' | 'error'> = {
  trial: 'info',
  active: 'success',
  inactive: 'error',
};

/** A plan can be revoked while the user has a paid plan or an active standing. */
export const canRevoke = (user: Pick<AdminUser, 'plan' | 'standing'>) =>
  user.plan !== 'free' || user.standing === 'active';
