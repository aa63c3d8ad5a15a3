import type {
  AdminMetaMaskOrder,
  AdminMetaMaskOrderList,
  AdminPaymentSettings,
  AdminUser,
  AdminUserList,
} from '../../api/admin.queries.ts';
import type { Ticket, TicketPage } from '../../api/help.queries.ts';

/** Test answers of the admin endpoints (kept with the feature; ui/test/fixtures.ts is shared). */

export const RECEIVER = '0x1111111111111111111111111111111111111111';
export const TX_HASH = `0x${'ab'.repeat(32)}`;

/** GET /api/admin/payment-settings: Stripe available, PayPal without keys, MetaMask off without receiver. */
export function adminPaymentSettings(overrides: Partial<AdminPaymentSettings> = {}): AdminPaymentSettings {
  return {
    currency: 'USD',
    prices: { starter: 3.99, pro: 19.99, addonInstance: 3.99 },
    methods: {
      stripe: { enabled: true, configured: true, available: true },
      paypalBusiness: { enabled: false, configured: false, available: false },
      paypalStandard: { enabled: true, configured: false, available: false },
      metamask: { enabled: false, configured: false, available: false, receiverAddress: null, chainId: null },
    },
    ...overrides,
  };
}

export function metamaskOrder(overrides: Partial<AdminMetaMaskOrder> = {}): AdminMetaMaskOrder {
  return {
    id: '7a000000-0000-4000-8000-000000000001',
    orderRef: 'BERTH-7A000000',
    status: 'submitted',
    kind: 'plan',
    plan: 'pro',
    billingCycle: 'monthly',
    amount: 19.99,
    currency: 'USD',
    chainId: '0xaa36a7',
    from: '0x2222222222222222222222222222222222222222',
    txHash: TX_HASH,
    verification: null,
    verificationState: 'not_checked',
    verificationNote: 'not checked yet',
    user: { id: '5f0c6a1e-3b43-4c8e-9a57-0d4a8c1f2b11', email: 'grace@example.com', username: 'grace' },
    createdAt: '2026-11-20T10:00:00.000Z',
    updatedAt: '2026-11-20T10:00:00.000Z',
    ...overrides,
  };
}

export const metamaskOrderList = (
  orders: AdminMetaMaskOrder[] = [metamaskOrder()],
  onChainChecks = true,
): AdminMetaMaskOrderList => ({ orders, onChainChecks });

export function adminUser(overrides: Partial<AdminUser> = {}): AdminUser {
  return {
    id: '5f0c6a1e-3b43-4c8e-9a57-0d4a8c1f2b11',
    username: 'grace',
    email: 'grace@example.com',
    role: 'user',
    plan: 'free',
    standing: 'trial',
    instancesUsed: 1,
    createdAt: '2026-11-01T00:00:00.000Z',
    ...overrides,
  };
}

export const adminUserList = (users: AdminUser[] = [adminUser()], total = users.length): AdminUserList => ({
  users,
  total,
  pages: Math.max(1, Math.ceil(total / 20)),
  page: 1,
  limit: 20,
});

export function adminTicket(overrides: Partial<Ticket> = {}): Ticket {
  const id = overrides.id ?? '7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6';
  return {
    _id: id,
    id,
    name: 'Grace Hopper',
    email: 'grace@example.com',
    category: 'technical',
    subject: 'Deploy fails',
    message: 'My WordPress deploy ends in an error.',
    path: '/instances',
    status: 'open',
    createdAt: '2026-11-20T10:00:00.000Z',
    updatedAt: '2026-11-20T10:00:00.000Z',
    plan: 'starter',
    dueAt: '2026-11-21T10:00:00.000Z',
    overdue: false,
    attachments: [],
    adminResponse: null,
    context: {
      plan: 'Starter',
      standing: 'active',
      instances: [{ name: 'blog', type: 'wordpress', status: 'error', lastError: 'Disk full', ssl: null }],
    },
    ...overrides,
  };
}

export const ticketPage = (items: Ticket[] = [adminTicket()], total = items.length): TicketPage => ({
  items,
  total,
  pages: Math.max(1, Math.ceil(total / 20)),
  page: 1,
  limit: 20,
});
