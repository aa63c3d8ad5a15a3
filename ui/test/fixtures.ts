import type { AuthResult, Schemas, Subscription, SubscriptionStatus, User } from '@berth/openapi';
import { REGIONS } from '@berth/openapi/rules';
import type { Backup } from '../src/api/instance-backups.queries.ts';
import type {
  DomainVerification,
  Instance,
  InstanceAccess,
  InstanceList,
} from '../src/api/instances.queries.ts';

const MINUTE = 60_000;

/** A subscription in its trial, `minutesLeft` from now. */
export function trialSubscription(minutesLeft = 42, overrides: Partial<Subscription> = {}): Subscription {
  const sub: Subscription = {
    plan: 'free',
    planId: 'free',
    planLabel: 'Free',
    planDetails: { id: 'free', name: 'Free', price: 0 },
    status: 'trialing',
    standing: 'trial',
    isTrialActive: true,
    isSubscriptionActive: false,
    isInactive: false,
    trialEndsAt: new Date(Date.now() + minutesLeft * MINUTE).toISOString(),
    cancelAtPeriodEnd: false,
    maxInstances: 1,
    usedInstances: 0,
    instancesUsed: 0,
    billingCycle: null,
    nextBillingDate: null,
    currency: 'USD',
    currencySymbol: '$',
    provider: null,
    addonInstances: 0,
    interval: null,
    nextBilling: null,
    amount: null,
    priceTotal: null,
    amountTotal: null,
    total: null,
    price: null,
    ...overrides,
  };
  // The server's aliases say the same as the fields they alias.
  return {
    ...sub,
    interval: overrides.interval ?? sub.billingCycle,
    nextBilling: overrides.nextBilling ?? sub.nextBillingDate,
  };
}

export function expiredSubscription(overrides: Partial<Subscription> = {}): Subscription {
  return trialSubscription(0, {
    status: 'expired',
    standing: 'inactive',
    isTrialActive: false,
    isInactive: true,
    trialEndsAt: new Date(Date.now() - 5 * MINUTE).toISOString(),
    ...overrides,
  });
}

export function proSubscription(overrides: Partial<Subscription> = {}): Subscription {
  return trialSubscription(0, {
    plan: 'pro',
    planId: 'pro',
    planLabel: 'Pro',
    planDetails: { id: 'pro', name: 'Pro', price: 19.99 },
    status: 'active',
    standing: 'active',
    isTrialActive: false,
    isSubscriptionActive: true,
    trialEndsAt: new Date(Date.now() - 30 * 24 * 60 * MINUTE).toISOString(),
    maxInstances: -1,
    billingCycle: 'monthly',
    nextBillingDate: new Date(Date.now() + 20 * 24 * 60 * MINUTE).toISOString(),
    provider: 'stripe',
    ...overrides,
  });
}

export function makeUser(overrides: Partial<User> = {}): User {
  return {
    id: '5f0c6a1e-3b43-4c8e-9a57-0d4a8c1f2b10',
    username: 'ada',
    email: 'ada@example.com',
    firstName: 'Ada',
    lastName: 'Lovelace',
    accountType: 'individual',
    companyName: null,
    role: 'user',
    avatarUrl: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    affiliateStatus: null,
    isAffiliate: false,
    subscription: trialSubscription(),
    instancesUsed: 0,
    instancesCount: 0,
    ...overrides,
  };
}

export const authResult = (user: User = makeUser(), token = 'fresh-token'): AuthResult => ({
  token,
  expiresIn: 900,
  refreshToken: `refresh-of-${token}`,
  refreshTokenExpiresAt: '2026-02-01T00:00:00.000Z',
  user,
});

export const apiError = (message: string, error = 'validation_error', details?: Record<string, unknown>) => ({
  error,
  message,
  ...(details ? { details } : {}),
});

export const subscriptionStatus = (subscription: Subscription = trialSubscription()): SubscriptionStatus => ({
  subscription,
  currency: 'USD',
  prices: { starter: 3.99, pro: 19.99, addonInstance: 3.99 },
  methods: {
    stripe: { enabled: false },
    paypalBusiness: { enabled: false },
    paypalStandard: { enabled: false },
    metamask: { enabled: false, receiverAddress: null, chainId: null },
  },
});

/** GET /api/payments/settings as the server answers it today: every method disabled. */
export const paymentSettings = (
  overrides: Partial<Schemas['PaymentSettings']> = {},
): Schemas['PaymentSettings'] => ({
  currency: 'USD',
  currencySymbol: '$',
  prices: { starter: 3.99, pro: 19.99, addonInstance: 3.99 },
  yearlyDiscounts: { starter: 0.1, pro: 0.3 },
  methods: subscriptionStatus().methods,
  emptyMessage:
    'No payment methods are currently available. Please contact support or enable a method in Admin settings.',
  ...overrides,
});

export function makeInvoice(overrides: Partial<Schemas['Invoice']> = {}): Schemas['Invoice'] {
  return {
    id: '20000000-0000-4000-8000-000000000001',
    amount: 19.99,
    currency: 'USD',
    description: 'Pro plan, monthly',
    date: '2026-11-01T10:00:00.000Z',
    status: 'paid',
    refundedAmount: 0,
    provider: 'stripe',
    downloadUrl: null,
    ...overrides,
  };
}

/** The answers of a signed-in session: profile and subscription status of `user`. */
export const signedInApi = (user: User = makeUser()) => ({
  'GET /api/auth/profile': { body: { user } },
  'GET /api/subscriptions/status': { body: subscriptionStatus(user.subscription) },
});

export const publicConfig = (overrides: Partial<Schemas['PublicConfig']> = {}): Schemas['PublicConfig'] => ({
  turnstileSiteKey: null,
  oauthEnabled: false,
  plans: {
    currency: 'USD',
    currencySymbol: '$',
    starter: { monthly: 3.99, yearlyDiscount: 0.1, yearly: 43.09 },
    pro: { monthly: 19.99, yearlyDiscount: 0.3, yearly: 167.92 },
    addonInstance: 3.99,
  },
  offer: publicOffer(),
  ...overrides,
});

/**
 * What an install offers: by default WordPress, MySQL and PostgreSQL; `available` lists the others to
 * switch on. The public API is offered when `publicApi` is true.
 */
export function publicOffer({
  available = ['wordpress', 'mysql', 'postgresql'],
  publicApi = false,
}: {
  available?: readonly string[];
  publicApi?: boolean;
} = {}): Schemas['PublicOffer'] {
  const types = [
    { type: 'mysql', name: 'MySQL', category: 'database' },
    { type: 'postgresql', name: 'PostgreSQL', category: 'database' },
    { type: 'mongodb', name: 'MongoDB', category: 'database' },
    { type: 'wordpress', name: 'WordPress', category: 'application' },
    { type: 'n8n', name: 'n8n', category: 'application' },
  ] as const;
  return {
    instanceTypes: types.map((t) => ({
      ...t,
      available: available.includes(t.type),
      reason: available.includes(t.type) ? null : 'Coming soon',
    })),
    publicApi: { available: publicApi, reason: publicApi ? null : 'Coming soon' },
  };
}

let notificationCount = 0;

export function makeNotification(overrides: Partial<Schemas['Notification']> = {}): Schemas['Notification'] {
  notificationCount += 1;
  const id = `00000000-0000-4000-8000-${String(notificationCount).padStart(12, '0')}`;
  return {
    _id: id,
    id,
    type: 'welcome',
    title: `Notification ${notificationCount}`,
    message: 'Something happened.',
    createdAt: '2026-11-20T10:00:00.000Z',
    read: false,
    ...overrides,
  };
}

export const notificationList = (items: Schemas['Notification'][] = [], unread?: number) => ({
  items,
  unread: unread ?? items.filter((item) => !item.read).length,
});

let instanceCount = 0;

/** Each feature of a type (the server's TYPE_FEATURES), every one offered: what the local driver answers. */
const TYPE_FEATURES: Record<Instance['product'], (keyof Instance['features'])[]> = {
  mysql: ['password', 'storage', 'usage', 'backups', 'databaseAdmin'],
  postgresql: ['password', 'storage', 'usage', 'backups'],
  mongodb: ['password', 'storage', 'usage', 'backups'],
  wordpress: ['domains', 'sftp', 'storage', 'usage', 'backups', 'databaseAdmin'],
  n8n: ['domains', 'storage', 'usage', 'backups'],
};

/**
 * The `features` of an instance of `product`: every feature of its type available, but those `missing`
 * names, which answer their reason (what a driver that does not offer them says).
 */
export function featuresOf(
  product: Instance['product'],
  missing: Partial<Record<keyof Instance['features'], string>> = {},
): Instance['features'] {
  return Object.fromEntries(
    TYPE_FEATURES[product].map((feature) => {
      const reason = missing[feature];
      return [feature, reason ? { available: false, reason } : { available: true, reason: null }];
    }),
  );
}

const PRODUCT_OF: Record<Instance['type'], Instance['product']> = {
  MySQL: 'mysql',
  PostgreSQL: 'postgresql',
  MongoDB: 'mongodb',
  WordPress: 'wordpress',
  n8n: 'n8n',
};

/** A running MySQL instance of the user, newest first by default. */
export function makeInstance(overrides: Partial<Instance> = {}): Instance {
  instanceCount += 1;
  const id = `10000000-0000-4000-8000-${String(instanceCount).padStart(12, '0')}`;
  return {
    features: featuresOf(overrides.product ?? PRODUCT_OF[overrides.type ?? 'MySQL']),
    _id: id,
    id,
    name: `Database ${instanceCount}`,
    description: '',
    type: 'MySQL',
    product: 'mysql',
    category: 'database',
    status: 'running',
    statusMessage: null,
    url: null,
    adminUrl: null,
    region: 'us-east-1',
    createdAt: '2026-11-20T10:00:00.000Z',
    updatedAt: '2026-11-20T10:00:05.000Z',
    deploymentConfig: { region: 'us-east-1', memory: '4GB', cpu: '2' },
    suspended: false,
    customDomain: null,
    metadata: { database: true, mysql: true },
    ...overrides,
  };
}

/** GET /api/instances: `instances` is the page; `total` defaults to its length. */
export function instanceList(
  instances: Instance[] = [],
  { page = 1, limit = 24, total = instances.length }: { page?: number; limit?: number; total?: number } = {},
): InstanceList {
  return { instances, total, pages: Math.max(1, Math.ceil(total / limit)), page, limit };
}

type Capability = Schemas['InstanceCapabilities']['types'][number];

/** The local driver without MongoDB: MySQL and PostgreSQL available, the applications 'Coming soon'. */
/**
 * GET /api/instances/capabilities: every type available but MongoDB, WordPress and n8n (or as
 * `overrides` say: null = available, a string = unavailable for that reason); every region available
 * (a server with many regions), or only `regions.only` with `regions.reason` for the others; the PHP
 * versions of WordPress sites (a Debian 12 host: 8.2 only).
 */
export function capabilities(
  overrides: Partial<Record<Capability['type'], string | null>> = {},
  regions: { only?: string; reason?: string } = {},
  php: Schemas['InstanceCapabilities']['php'] = { versions: ['8.2'], default: '8.2' },
) {
  const types: Capability[] = [
    { type: 'mysql', name: 'MySQL', category: 'database', available: true, reason: null },
    { type: 'postgresql', name: 'PostgreSQL', category: 'database', available: true, reason: null },
    {
      type: 'mongodb',
      name: 'MongoDB',
      category: 'database',
      available: false,
      reason: 'MongoDB is not offered on this server',
    },
    {
      type: 'wordpress',
      name: 'WordPress',
      category: 'application',
      available: false,
      reason: 'Coming soon',
    },
    { type: 'n8n', name: 'n8n', category: 'application', available: false, reason: 'Coming soon' },
  ];
  return {
    types: types.map((entry) =>
      entry.type in overrides
        ? { ...entry, available: overrides[entry.type] === null, reason: overrides[entry.type] ?? null }
        : entry,
    ),
    regions: REGIONS.map(({ id, label }) => {
      const available = regions.only === undefined || regions.only === id;
      return { id, label, available, reason: available ? null : (regions.reason ?? 'Not offered here') };
    }),
    php,
  };
}

/** GET /api/instances/{id}/access once the credentials are ready. */
export function databaseAccess(overrides: Partial<InstanceAccess['database']> = {}): InstanceAccess {
  const database = {
    host: '127.0.0.1',
    port: 3306,
    name: 't_orders',
    user: 'u_orders',
    password: 'S3cret-Pass_word',
    tls: { required: false, caCertificate: null, caFileName: null },
    phpmyadmin: null,
    ...overrides,
  };
  return {
    database: {
      ...database,
      connectionString: `mysql://${database.user}:${database.password}@${database.host}:${database.port}/${database.name}`,
    },
  };
}

/** The ownership proof of a custom domain (attached by default), as the API answers it. */
export function domainVerification(
  domain: string,
  status: DomainVerification['status'] = 'attached',
  overrides: Partial<DomainVerification> = {},
): DomainVerification {
  return {
    status,
    record: {
      type: 'TXT',
      name: `_berth-verify.${domain}`,
      value: 'berth-verify=0123456789abcdef0123456789abcdef',
    },
    lastChecked: null,
    message: status === 'attached' ? 'Verified and attached' : null,
    ...overrides,
  };
}

/** An affiliate's answers of the affiliate calls, with one referral paid this month. */
export function affiliateApi(code = 'KATHY123') {
  const year = new Date().getFullYear();
  const thisMonth = new Date().getMonth() + 1;
  const months = Array.from({ length: 12 }, (_, i) => ({
    month: i + 1,
    clicks: i + 1 === thisMonth ? 3 : 0,
    referrals: i + 1 === thisMonth ? 1 : 0,
    activeReferrals: i + 1 === thisMonth ? 1 : 0,
    earnings: i + 1 === thisMonth ? 4 : 0,
  }));
  const dashboard: Schemas['AffiliateDashboard'] = {
    currency: 'USD',
    totalEarnings: 4,
    pendingEarnings: 4,
    availableBalance: 0,
    heldEarnings: 4,
    totalReferrals: 1,
    activeReferrals: 1,
    totalClicks: 3,
    conversionRate: 100,
    referralCode: code,
    referralLink: `http://localhost/register?ref=${code}`,
    homepageLink: `http://localhost/?ref=${code}`,
    referralName: null,
    referralNumber: null,
    changes: {
      totalEarnings: null,
      pendingEarnings: null,
      totalReferrals: null,
      totalClicks: 50,
      conversionRate: 0,
    },
  };
  const profile: Schemas['AffiliateProfile'] = {
    id: '5a0c2d4e-0000-4000-8000-000000000013',
    referralCode: code,
    referralLink: dashboard.referralLink,
    homepageLink: dashboard.homepageLink,
    referralName: null,
    referralNumber: null,
    website: null,
    status: 'active',
    paymentMethod: 'paypal',
    paypalEmail: 'payouts@example.com',
    bankDetails: null,
    cryptoWallet: null,
    createdAt: new Date().toISOString(),
  };
  return {
    'GET /api/affiliates/dashboard': { body: dashboard },
    'GET /api/affiliates/me': { body: profile },
    'GET /api/affiliates/stats': {
      body: {
        year,
        currency: 'USD',
        months,
        totals: { clicks: 3, referrals: 1, activeReferrals: 1, earnings: 4 },
      } satisfies Schemas['AffiliateMonthlyStats'],
    },
    'GET /api/affiliates/payouts': {
      body: {
        currency: 'USD',
        minimumPayout: 50,
        pendingEarnings: 4,
        availableBalance: 0,
        payouts: [],
      } satisfies Schemas['AffiliatePayoutList'],
    },
  };
}

/** A complete manual backup kept off-site, as GET /api/instances/{id}/backups lists it. */
export function backupRow(overrides: Partial<Backup> & Pick<Backup, 'id' | 'name'>): Backup {
  return {
    note: '',
    createdAt: '2026-11-21T09:00:00.000Z',
    completedAt: '2026-11-21T09:01:00.000Z',
    kind: 'manual',
    status: 'complete',
    step: null,
    error: null,
    bytes: 1_000_000,
    size: 1_000_000,
    location: 'Off-site storage',
    offsite: true,
    ...overrides,
  };
}
