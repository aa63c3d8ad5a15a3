import type { Subscription, User } from '@berth/openapi';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { FakeRoutes } from '../../../test/fake-api.ts';
import {
  apiError,
  expiredSubscription,
  makeInvoice,
  makeUser,
  paymentSettings,
  proSubscription,
  signedInApi,
  subscriptionStatus,
  trialSubscription,
} from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';
import { METAMASK_NOT_DETECTED_TEXT } from './metamask.ts';
import { METAMASK_SUBMITTED_TEXT } from './metamask-payment.tsx';

const CHECKOUT_URL = 'https://checkout.stripe.example/c/pay/cs_test_1';

const allMethods = () =>
  paymentSettings({
    methods: {
      stripe: { enabled: true },
      paypalBusiness: { enabled: true },
      paypalStandard: { enabled: true },
      metamask: {
        enabled: true,
        receiverAddress: '0x52908400098527886e0f7030069857d2e4169ee7',
        chainId: '0xaa36a7',
      },
    },
  });

const starterSubscription = (overrides: Partial<Subscription> = {}) =>
  proSubscription({
    plan: 'starter',
    planId: 'starter',
    planLabel: 'Starter',
    planDetails: { id: 'starter', name: 'Starter', price: 3.99 },
    maxInstances: 1,
    ...overrides,
  });

function renderBilling(subscription: Subscription, api: FakeRoutes = {}) {
  const user: User = makeUser({ subscription });
  return renderApp({
    path: '/billing',
    token: 'stored',
    api: {
      ...signedInApi(user),
      'GET /api/payments/settings': { body: allMethods() },
      'POST /api/payments/create-paypal-payment': { body: { redirectUrl: CHECKOUT_URL } },
      ...api,
    },
  });
}

const region = (name: string) => screen.findByRole('region', { name });
const paymentDialog = () => screen.findByRole('dialog', { name: 'Choose a payment method' });
/** The toasts: texts outside any dialog. */
const toastTexts = (text: string) =>
  screen.queryAllByText(text).filter((element) => element.closest('[role="dialog"]') === null);

describe('payment method modal', () => {
  it('lists the enabled methods as buttons with descriptions', async () => {
    const app = renderBilling(trialSubscription(), {
      'GET /api/payments/settings': {
        body: paymentSettings({
          methods: { ...allMethods().methods, paypalBusiness: { enabled: false } },
        }),
      },
    });
    await app.user.click(within(await region('Pro')).getByRole('button', { name: 'Choose Pro' }));
    const dialog = await paymentDialog();
    expect(within(dialog).getByText('Pro, billed monthly')).toBeTruthy();
    const group = within(dialog).getByRole('group', { name: 'Payment methods' });
    const names = within(group)
      .getAllByRole('button')
      .map((button) => button.getAttribute('aria-label'));
    expect(names).toEqual(['Card (Stripe)', 'PayPal', 'MetaMask']);
    const card = within(group).getByRole('button', { name: 'Card (Stripe)' });
    expect(card.getAttribute('aria-describedby')).toBeTruthy();
    expect(within(dialog).getByText(/Stripe’s secure checkout page/)).toBeTruthy();
  });

  it.each([
    ['Pro', 'yearly', 'Card (Stripe)', 'stripe'],
    ['Starter', 'monthly', 'PayPal Business', 'paypal_business'],
    ['Starter', 'yearly', 'PayPal', 'paypal_standard'],
  ] as const)(
    'Choose %s (%s) with %s sends plan, cycle and provider, then opens the provider page',
    async (plan, cycle, method, provider) => {
      const app = renderBilling(trialSubscription());
      if (cycle === 'yearly') await app.user.click(await screen.findByRole('button', { name: 'Yearly' }));
      await app.user.click(within(await region(plan)).getByRole('button', { name: `Choose ${plan}` }));
      const dialog = await paymentDialog();
      expect(within(dialog).getByText(`${plan}, billed ${cycle}`)).toBeTruthy();
      await app.user.click(within(dialog).getByRole('button', { name: method }));
      await waitFor(() => expect(app.paymentPages).toEqual([CHECKOUT_URL]));
      expect(app.api.calls('POST /api/payments/create-paypal-payment').map((call) => call.body)).toEqual([
        { plan: plan.toLowerCase(), billingCycle: cycle, provider },
      ]);
      expect(await within(dialog).findByText('Taking you to the payment page…')).toBeTruthy();
    },
  );

  it('Add Instance buys the add-on', async () => {
    const app = renderBilling(starterSubscription());
    await app.user.click(within(await region('Add Instance')).getByRole('button', { name: 'Add Instance' }));
    const dialog = await paymentDialog();
    expect(within(dialog).getByText('Additional instance, $3.99/month')).toBeTruthy();
    await app.user.click(within(dialog).getByRole('button', { name: 'PayPal' }));
    await waitFor(() => expect(app.paymentPages).toEqual([CHECKOUT_URL]));
    expect(app.api.calls('POST /api/payments/create-paypal-payment')[0]?.body).toEqual({
      purchaseType: 'addon_instance',
      provider: 'paypal_standard',
    });
  });

  it('shows the pending method and disables the others while the payment is created', async () => {
    let answer: (value: { body: unknown }) => void = () => {};
    const app = renderBilling(trialSubscription(), {
      'POST /api/payments/create-paypal-payment': () =>
        new Promise((resolve) => {
          answer = resolve;
        }),
    });
    await app.user.click(within(await region('Pro')).getByRole('button', { name: 'Choose Pro' }));
    const dialog = await paymentDialog();
    await app.user.click(within(dialog).getByRole('button', { name: 'PayPal Business' }));
    const pending = within(dialog).getByRole('button', { name: 'PayPal Business' });
    await waitFor(() => expect(pending.getAttribute('aria-busy')).toBe('true'));
    for (const name of ['Card (Stripe)', 'PayPal', 'MetaMask', 'PayPal Business'])
      expect(within(dialog).getByRole('button', { name })).toHaveProperty('disabled', true);
    expect(within(dialog).getByRole('button', { name: 'Close' })).toHaveProperty('disabled', true);
    answer({ body: { redirectUrl: CHECKOUT_URL } });
    await waitFor(() => expect(app.paymentPages).toEqual([CHECKOUT_URL]));
  });

  it('follows an answer on our own /payment-success page inside the app (Stripe plan changed in place)', async () => {
    const app = renderBilling(proSubscription({ billingCycle: 'monthly' }), {
      'POST /api/payments/create-paypal-payment': {
        body: { redirectUrl: `${window.location.origin}/payment-success?tx=sub_change_1` },
      },
    });
    await app.user.click(await screen.findByRole('button', { name: 'Yearly' }));
    await app.user.click(
      within(await region('Pro')).getByRole('button', { name: 'Switch to yearly billing' }),
    );
    await app.user.click(within(await paymentDialog()).getByRole('button', { name: 'Card (Stripe)' }));
    expect(await screen.findByRole('heading', { name: 'Payment Successful' })).toBeTruthy();
    expect(app.location()).toBe('/payment-success?tx=sub_change_1');
    expect(app.paymentPages).toEqual([]);
  });

  it('shows the server message of a 409 inside the modal, without the generic toast', async () => {
    const message = 'This payment method is not available.';
    const app = renderBilling(trialSubscription(), {
      'POST /api/payments/create-paypal-payment': { status: 409, body: apiError(message, 'conflict') },
    });
    await app.user.click(within(await region('Starter')).getByRole('button', { name: 'Choose Starter' }));
    const dialog = await paymentDialog();
    await app.user.click(within(dialog).getByRole('button', { name: 'Card (Stripe)' }));
    expect(await within(dialog).findByText(message)).toBeTruthy();
    expect(toastTexts('Failed to create payment URL')).toEqual([]);
    expect(app.paymentPages).toEqual([]);
    // The methods stay usable for another try.
    expect(within(dialog).getByRole('button', { name: 'PayPal' })).toHaveProperty('disabled', false);
  });

  it('shows the downgrade message the server answers', async () => {
    const message =
      'Please delete your extra instances before downgrading. The basic Starter plan is limited to 1 instance.';
    const app = renderBilling(proSubscription({ usedInstances: 1, instancesUsed: 1 }), {
      'POST /api/payments/create-paypal-payment': { status: 409, body: apiError(message, 'conflict') },
    });
    await app.user.click(
      within(await region('Starter')).getByRole('button', { name: 'Downgrade to Starter' }),
    );
    const dialog = await paymentDialog();
    await app.user.click(within(dialog).getByRole('button', { name: 'Card (Stripe)' }));
    expect(await within(dialog).findByText(message)).toBeTruthy();
    expect(app.api.calls('POST /api/payments/create-paypal-payment')[0]?.body).toEqual({
      plan: 'starter',
      billingCycle: 'monthly',
      provider: 'stripe',
    });
  });

  it("toasts 'Failed to create payment URL' on a 502 and shows the reference of the server's log line", async () => {
    const app = renderBilling(trialSubscription(), {
      'POST /api/payments/create-paypal-payment': {
        status: 502,
        body: apiError('Failed to create payment URL', 'payment_provider_error', {
          requestId: '3f9a1c2b7d4e',
        }),
      },
    });
    await app.user.click(within(await region('Pro')).getByRole('button', { name: 'Choose Pro' }));
    const dialog = await paymentDialog();
    await app.user.click(within(dialog).getByRole('button', { name: 'PayPal Business' }));
    expect(await within(dialog).findByText('Reference: 3f9a1c2b7d4e')).toBeTruthy();
    expect(within(dialog).getByText('Failed to create payment URL')).toBeTruthy();
    await waitFor(() => expect(toastTexts('Failed to create payment URL')).toHaveLength(1));
  });

  it("toasts 'Failed to create payment URL' when the request gets no answer", async () => {
    const app = renderBilling(trialSubscription(), {
      'POST /api/payments/create-paypal-payment': () => {
        throw new TypeError('Failed to fetch');
      },
    });
    await app.user.click(within(await region('Pro')).getByRole('button', { name: 'Choose Pro' }));
    const dialog = await paymentDialog();
    await app.user.click(within(dialog).getByRole('button', { name: 'Card (Stripe)' }));
    expect(await within(dialog).findByText('Failed to create payment URL')).toBeTruthy();
    await waitFor(() => expect(toastTexts('Failed to create payment URL')).toHaveLength(1));
  });

  it('MetaMask continues in the modal with the Pay with MetaMask step', async () => {
    const app = renderBilling(trialSubscription());
    await app.user.click(within(await region('Pro')).getByRole('button', { name: 'Choose Pro' }));
    const dialog = await paymentDialog();
    await app.user.click(within(dialog).getByRole('button', { name: 'MetaMask' }));
    const step = within(dialog).getByRole('region', { name: 'Pay with MetaMask' });
    expect(within(step).getByRole('button', { name: 'Pay with MetaMask' })).toBeTruthy();
    expect(within(step).getByText(/zero-value transaction/)).toBeTruthy();
    await app.user.click(within(step).getByRole('button', { name: 'Other methods' }));
    expect(within(dialog).getByRole('group', { name: 'Payment methods' })).toBeTruthy();
    expect(app.api.calls('POST /api/payments/create-paypal-payment')).toEqual([]);
  });
});

const RECEIVER = '0x52908400098527886e0f7030069857d2e4169ee7';
const TX_HASH = '0x88df016429689c079f3b2f6ad39fa052532c56795b733da78a91ebe6a713944b';
const ACCOUNT = '0x1111111111111111111111111111111111111111';

function metaMaskOrder(status: 'pending' | 'submitted' = 'pending') {
  return {
    id: '30000000-0000-4000-8000-000000000001',
    orderRef: 'BERTH-ORDER-1',
    status,
    kind: 'plan',
    plan: 'pro',
    billingCycle: 'monthly',
    amount: 19.99,
    currency: 'USD',
    chainId: '0xaa36a7',
    from: status === 'pending' ? null : ACCOUNT,
    txHash: status === 'pending' ? null : TX_HASH,
    verification: null,
    createdAt: '2026-11-22T10:00:00.000Z',
    updatedAt: '2026-11-22T10:00:00.000Z',
  };
}

describe('MetaMask payment', () => {
  const metaMaskRoutes: FakeRoutes = {
    'POST /api/payments/metamask/orders': {
      status: 201,
      body: {
        ...metaMaskOrder(),
        receiverAddress: RECEIVER,
        transaction: { to: RECEIVER, value: '0x0', data: '0x4245' },
      },
    },
    'POST /api/payments/metamask/orders/30000000-0000-4000-8000-000000000001/transaction': {
      body: metaMaskOrder('submitted'),
    },
  };

  it('opens an order, sends the zero-value transaction and reports its hash', async () => {
    const sent: unknown[] = [];
    vi.stubGlobal('ethereum', {
      request: async ({ method, params }: { method: string; params?: unknown[] }) => {
        if (method === 'eth_requestAccounts') return [ACCOUNT];
        if (method === 'eth_chainId') return '0xaa36a7';
        if (method === 'eth_sendTransaction') {
          sent.push(params?.[0]);
          return TX_HASH;
        }
        throw new Error(`unexpected ${method}`);
      },
    });
    const app = renderBilling(trialSubscription(), metaMaskRoutes);
    await app.user.click(within(await region('Pro')).getByRole('button', { name: 'Choose Pro' }));
    const dialog = await paymentDialog();
    await app.user.click(within(dialog).getByRole('button', { name: 'MetaMask' }));
    await app.user.click(within(dialog).getByRole('button', { name: 'Pay with MetaMask' }));
    expect(await within(dialog).findByText(METAMASK_SUBMITTED_TEXT)).toBeTruthy();
    expect(app.api.calls('POST /api/payments/metamask/orders')[0]?.body).toEqual({
      plan: 'pro',
      billingCycle: 'monthly',
    });
    expect(sent).toEqual([expect.objectContaining({ from: ACCOUNT, to: RECEIVER, value: '0x0' })]);
    expect(
      app.api.calls('POST /api/payments/metamask/orders/30000000-0000-4000-8000-000000000001/transaction')[0]
        ?.body,
    ).toEqual({ from: ACCOUNT, txHash: TX_HASH, chainId: '0xaa36a7' });
  });

  it('says so when MetaMask is not installed', async () => {
    const app = renderBilling(trialSubscription(), metaMaskRoutes);
    await app.user.click(within(await region('Starter')).getByRole('button', { name: 'Choose Starter' }));
    const dialog = await paymentDialog();
    await app.user.click(within(dialog).getByRole('button', { name: 'MetaMask' }));
    await app.user.click(within(dialog).getByRole('button', { name: 'Pay with MetaMask' }));
    expect(await within(dialog).findByText(METAMASK_NOT_DETECTED_TEXT)).toBeTruthy();
  });
});

describe('plan actions', () => {
  it('offers Switch to yearly billing on the current plan when Yearly is selected, and back', async () => {
    const app = renderBilling(proSubscription({ billingCycle: 'monthly' }));
    const pro = await region('Pro');
    expect(within(pro).getByRole('button', { name: 'Current Plan' })).toHaveProperty('disabled', true);
    await app.user.click(screen.getByRole('button', { name: 'Yearly' }));
    await app.user.click(within(pro).getByRole('button', { name: 'Switch to yearly billing' }));
    const dialog = await paymentDialog();
    expect(within(dialog).getByText('Pro, billed yearly')).toBeTruthy();
    await app.user.click(within(dialog).getByRole('button', { name: 'Card (Stripe)' }));
    await waitFor(() =>
      expect(app.api.calls('POST /api/payments/create-paypal-payment')[0]?.body).toEqual({
        plan: 'pro',
        billingCycle: 'yearly',
        provider: 'stripe',
      }),
    );
  });

  it('offers Switch to monthly billing to a yearly subscriber', async () => {
    const app = renderBilling(starterSubscription({ billingCycle: 'yearly' }));
    const starter = await region('Starter');
    expect(within(starter).getByRole('button', { name: 'Switch to monthly billing' })).toBeTruthy();
    await app.user.click(screen.getByRole('button', { name: 'Yearly' }));
    expect(within(starter).getByRole('button', { name: 'Current Plan' })).toHaveProperty('disabled', true);
  });

  it.each([
    ['Subscribe Now', trialSubscription()],
    ['Renew Subscription', expiredSubscription()],
  ])('%s scrolls to the plans and moves the focus there', async (name, subscription) => {
    const app = renderBilling(subscription);
    const plans = await region('Plans');
    await app.user.click(within(await region('Current plan')).getByRole('button', { name }));
    expect(document.activeElement).toBe(plans);
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});

describe('subscription actions', () => {
  it('cancels at period end after a confirmation naming the end date, then refreshes', async () => {
    const nextBillingDate = '2026-12-24T10:00:00.000Z';
    const subscription = proSubscription({ nextBillingDate });
    const app = renderBilling(subscription, {
      'PUT /api/subscriptions/cancel-at-period-end': { body: { ...subscription, cancelAtPeriodEnd: true } },
    });
    const plan = await region('Current plan');
    await waitFor(() => expect(app.api.calls('GET /api/subscriptions/status')).toHaveLength(1));
    await app.user.click(within(plan).getByRole('button', { name: 'Cancel subscription' }));
    const dialog = await screen.findByRole('dialog', { name: 'Cancel subscription?' });
    const date = new Intl.DateTimeFormat(undefined, { dateStyle: 'long' }).format(new Date(nextBillingDate));
    expect(within(dialog).getByText(new RegExp(`You keep access .* until ${date}\\.`))).toBeTruthy();

    app.api.on({
      'GET /api/subscriptions/status': {
        body: subscriptionStatus({ ...subscription, cancelAtPeriodEnd: true }),
      },
    });
    await app.user.click(within(dialog).getByRole('button', { name: 'Cancel subscription' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(app.api.calls('PUT /api/subscriptions/cancel-at-period-end')[0]?.body).toEqual({
      cancelAtPeriodEnd: true,
    });
    expect(await within(plan).findByText('Cancels at period end')).toBeTruthy();
    expect(app.api.calls('GET /api/payments/billing-history').length).toBeGreaterThan(1);
    expect(within(plan).queryByRole('button', { name: 'Cancel subscription' })).toBeNull();
  });

  it('keeps the dialog open with the server message when cancelling fails', async () => {
    const message = 'There is no active subscription to cancel.';
    const app = renderBilling(proSubscription({ provider: 'manual' }), {
      'PUT /api/subscriptions/cancel-at-period-end': { status: 409, body: apiError(message, 'conflict') },
    });
    await app.user.click(
      within(await region('Current plan')).getByRole('button', { name: 'Cancel subscription' }),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Cancel subscription?' });
    await app.user.click(within(dialog).getByRole('button', { name: 'Cancel subscription' }));
    expect(await within(dialog).findByText(message)).toBeTruthy();
    await app.user.click(within(dialog).getByRole('button', { name: 'Keep subscription' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('resumes a Stripe subscription set to cancel', async () => {
    const app = renderBilling(proSubscription({ cancelAtPeriodEnd: true }), {
      'PUT /api/subscriptions/cancel-at-period-end': { body: proSubscription() },
    });
    const plan = await region('Current plan');
    expect(within(plan).queryByRole('button', { name: 'Cancel subscription' })).toBeNull();
    await app.user.click(within(plan).getByRole('button', { name: 'Resume subscription' }));
    await waitFor(() =>
      expect(app.api.calls('PUT /api/subscriptions/cancel-at-period-end')[0]?.body).toEqual({
        cancelAtPeriodEnd: false,
      }),
    );
    expect(await screen.findByText('Your subscription will renew')).toBeTruthy();
  });

  it('offers neither Resume nor Manage payment details for PayPal', async () => {
    renderBilling(proSubscription({ cancelAtPeriodEnd: true, provider: 'paypal_business' }));
    const plan = await region('Current plan');
    expect(within(plan).getByText('Cancels at period end')).toBeTruthy();
    expect(within(plan).queryByRole('button')).toBeNull();
  });

  it('opens the Stripe customer portal through the platform', async () => {
    const portal = 'https://billing.stripe.example/p/session/1';
    const app = renderBilling(proSubscription(), {
      'POST /api/payments/stripe/portal': { body: { url: portal } },
    });
    await app.user.click(
      within(await region('Current plan')).getByRole('button', { name: 'Manage payment details' }),
    );
    await waitFor(() => expect(app.paymentPages).toEqual([portal]));
  });

  it('toasts the server message when there is no Stripe customer', async () => {
    const message = 'There is no card subscription to manage yet. Subscribe with a card first.';
    const app = renderBilling(proSubscription(), {
      'POST /api/payments/stripe/portal': { status: 409, body: apiError(message, 'conflict') },
    });
    await app.user.click(
      within(await region('Current plan')).getByRole('button', { name: 'Manage payment details' }),
    );
    expect(await screen.findByText(message)).toBeTruthy();
    expect(app.paymentPages).toEqual([]);
  });
});

describe('additional instance removal', () => {
  it('is offered only with an add-on', async () => {
    renderBilling(starterSubscription());
    const card = await region('Add Instance');
    expect(within(card).queryByRole('button', { name: 'Remove additional instance' })).toBeNull();
  });

  it('warns about the price and the 1-instance limit, then removes the add-on', async () => {
    const subscription = starterSubscription({ maxInstances: 2, addonInstances: 1 });
    const app = renderBilling(subscription, {
      'DELETE /api/payments/addon-instance': { body: starterSubscription() },
    });
    const card = await region('Add Instance');
    expect(within(card).getByText('Your plan includes 1 additional instance.')).toBeTruthy();
    await app.user.click(within(card).getByRole('button', { name: 'Remove additional instance' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove the additional instance?' });
    expect(
      within(dialog).getByText(/the cost returns to \$3\.99\/month and only 1 instance is allowed/),
    ).toBeTruthy();
    app.api.on({ 'GET /api/subscriptions/status': { body: subscriptionStatus(starterSubscription()) } });
    await app.user.click(within(dialog).getByRole('button', { name: 'Remove' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(app.api.calls('DELETE /api/payments/addon-instance')).toHaveLength(1);
    expect(await screen.findByText('Additional instance removed')).toBeTruthy();
    await waitFor(() =>
      expect(within(card).queryByRole('button', { name: 'Remove additional instance' })).toBeNull(),
    );
  });

  it('shows the downgrade message when more than 1 instance is used', async () => {
    const message =
      'Please delete your extra instances before downgrading. The basic Starter plan is limited to 1 instance.';
    const app = renderBilling(starterSubscription({ maxInstances: 2, addonInstances: 1, usedInstances: 2 }), {
      'DELETE /api/payments/addon-instance': { status: 409, body: apiError(message, 'conflict') },
    });
    await app.user.click(
      within(await region('Add Instance')).getByRole('button', { name: 'Remove additional instance' }),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Remove the additional instance?' });
    await app.user.click(within(dialog).getByRole('button', { name: 'Remove' }));
    expect(await within(dialog).findByText(message)).toBeTruthy();
  });
});

describe('billing history download', () => {
  it('opens the invoice outside the app', async () => {
    const url = 'https://billing.example.com/invoice/1.pdf';
    const app = renderBilling(proSubscription(), {
      'GET /api/payments/billing-history': { body: { invoices: [makeInvoice({ downloadUrl: url })] } },
    });
    const table = await screen.findByRole('table', { name: 'Billing history' });
    expect(within(table).getByText('$19.99')).toBeTruthy();
    await app.user.click(within(table).getByRole('button', { name: /Download/ }));
    expect(app.externalUrls).toEqual([url]);
  });
});
