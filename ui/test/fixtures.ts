import type { AuthResult, Schemas, Subscription, SubscriptionStatus, User } from '@berth/openapi';

const MINUTE = 60_000;

/** A subscription in its trial, `minutesLeft` from now. */
export function trialSubscription(minutesLeft = 42, overrides: Partial<Subscription> = {}): Subscription {
  return {
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
    ...overrides,
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

export const authResult = (user: User = makeUser(), token = 'fresh-token'): AuthResult => ({ token, user });

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
  ...overrides,
});

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
