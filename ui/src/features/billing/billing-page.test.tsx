import type { Subscription, User } from '@berth/openapi';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { FakeRoutes } from '../../../test/fake-api.ts';
import {
  domainVerification,
  expiredSubscription,
  instanceList,
  makeInstance,
  makeInvoice,
  makeUser,
  paymentSettings,
  proSubscription,
  signedInApi,
  trialSubscription,
} from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';
import { NO_PAYMENT_METHODS_TEXT } from './billing.ts';

const starterSubscription = (overrides: Partial<Subscription> = {}) =>
  proSubscription({
    plan: 'starter',
    planId: 'starter',
    planLabel: 'Starter',
    planDetails: { id: 'starter', name: 'Starter', price: 3.99 },
    maxInstances: 1,
    ...overrides,
  });

function renderBilling(
  subscription: Subscription,
  api: FakeRoutes = {},
  user: User = makeUser({ subscription }),
) {
  return renderApp({ path: '/billing', token: 'stored', api: { ...signedInApi(user), ...api } });
}

const region = (name: string) => screen.findByRole('region', { name });
const currentPlan = () => region('Current plan');

describe('billing page: current plan', () => {
  it('during a trial shows the trial text and Subscribe Now', async () => {
    renderBilling(trialSubscription(30));
    expect(await screen.findByRole('heading', { level: 1, name: 'Subscription and Billing' })).toBeTruthy();
    const plan = await currentPlan();
    expect(within(plan).getByText('Free')).toBeTruthy();
    expect(within(plan).getByText('Trial')).toBeTruthy();
    expect(within(plan).getByText(/^Trial active — ends /)).toBeTruthy();
    expect(within(plan).getByRole('button', { name: 'Subscribe Now' })).toBeTruthy();
    expect(within(plan).queryByRole('button', { name: 'Renew Subscription' })).toBeNull();
  });

  it('while active shows the plan label, next billing date and the subscription actions', async () => {
    renderBilling(proSubscription());
    const plan = await currentPlan();
    expect(within(plan).getAllByText('Pro').length).toBeGreaterThan(0);
    expect(within(plan).getByText('Active')).toBeTruthy();
    expect(within(plan).getByText(/^Next billing date: .* \(billed monthly\)$/)).toBeTruthy();
    expect(within(plan).queryByText('Cancels at period end')).toBeNull();
    const buttons = within(plan)
      .getAllByRole('button')
      .map((button) => button.textContent);
    expect(buttons).toEqual(['Cancel subscription', 'Manage payment details']);
  });

  it('shows Cancels at period end and when access ends', async () => {
    renderBilling(proSubscription({ cancelAtPeriodEnd: true }));
    const plan = await currentPlan();
    expect(within(plan).getByText('Cancels at period end')).toBeTruthy();
    expect(within(plan).getByText(/^Access ends: /)).toBeTruthy();
    expect(within(plan).queryByRole('button', { name: 'Cancel subscription' })).toBeNull();
    expect(within(plan).getByRole('button', { name: 'Resume subscription' })).toBeTruthy();
  });

  it('labels Starter with an add-on Starter + Additional Instance', async () => {
    renderBilling(starterSubscription({ maxInstances: 2 }));
    expect(within(await currentPlan()).getAllByText('Starter + Additional Instance').length).toBeGreaterThan(
      0,
    );
  });

  it('when inactive asks to complete payment and offers Renew Subscription', async () => {
    renderBilling(expiredSubscription());
    const plan = await currentPlan();
    expect(within(plan).getByText('Expired')).toBeTruthy();
    expect(within(plan).getByText('Trial expired — no active subscription')).toBeTruthy();
    expect(
      within(plan).getByText('Your subscription is inactive. Complete payment to reactivate.'),
    ).toBeTruthy();
    expect(within(plan).getByRole('button', { name: 'Renew Subscription' })).toBeTruthy();
    expect(within(plan).queryByRole('button', { name: 'Subscribe Now' })).toBeNull();
    expect(within(plan).queryByText('Cancels at period end')).toBeNull();
  });

  it('toasts when the subscription status cannot be loaded', async () => {
    renderBilling(trialSubscription(), { 'GET /api/subscriptions/status': { status: 503, body: undefined } });
    expect(await screen.findByText('Failed to load subscription status', {}, { timeout: 4000 })).toBeTruthy();
  });
});

describe('billing page: usage', () => {
  it('counts instances, domains (instances with a custom domain) and API requests (always 0)', async () => {
    const domain = (name: string) => ({
      domain: name,
      addedAt: null,
      isActive: true,
      ssl: { status: 'Active' as const, isPrimary: true, message: 'Certificate issued', lastChecked: null },
      verification: domainVerification(name),
    });
    const instances = [
      makeInstance({ customDomain: domain('a.example.com') }),
      makeInstance({ customDomain: domain('b.example.com') }),
      makeInstance(),
    ];
    const app = renderBilling(proSubscription({ usedInstances: 3, instancesUsed: 3 }), {
      'GET /api/instances': { body: instanceList(instances) },
    });
    const usage = await region('Usage');
    const fact = (label: string) => within(usage).getByText(label).nextElementSibling?.textContent;
    expect(fact('Instances used')).toBe('3 / Unlimited');
    expect(await within(usage).findByText('2')).toBeTruthy();
    expect(fact('Domains used')).toBe('2');
    expect(fact('API requests used')).toBe('0');
    expect(new URLSearchParams(app.api.calls('GET /api/instances')[0]?.search).get('limit')).toBe('1000');
  });

  it('shows used / max on Starter', async () => {
    renderBilling(starterSubscription({ usedInstances: 1, instancesUsed: 1 }));
    const usage = await region('Usage');
    expect(within(usage).getByText('Instances used').nextElementSibling?.textContent).toBe('1 / 1');
  });
});

describe('billing page: plans', () => {
  it('shows the savings text and yearly monthly-equivalent prices from the server', async () => {
    const settings = paymentSettings({
      currency: 'EUR',
      currencySymbol: '€',
      prices: { starter: 5, pro: 20, addonInstance: 4.5 },
      yearlyDiscounts: { starter: 0.2, pro: 0.25 },
    });
    const app = renderBilling(trialSubscription(), { 'GET /api/payments/settings': { body: settings } });
    expect(await screen.findByText('Save 20% on Starter and 25% on Pro with yearly billing')).toBeTruthy();
    expect(within(await region('Starter')).getByText('€5.00')).toBeTruthy();
    expect(within(await region('Pro')).getByText('€20.00')).toBeTruthy();

    await app.user.click(screen.getByRole('button', { name: 'Yearly' }));
    const starter = await region('Starter');
    expect(within(starter).getByText('€4.00')).toBeTruthy();
    expect(within(starter).getByText('Billed yearly: €48.00 — save 20%')).toBeTruthy();
    const pro = await region('Pro');
    expect(within(pro).getByText('€15.00')).toBeTruthy();
    expect(within(pro).getByText('Billed yearly: €180.00 — save 25%')).toBeTruthy();
  });

  it('shows the default discounts: Starter 10 %, Pro 30 %', async () => {
    const app = renderBilling(trialSubscription());
    expect(await screen.findByText('Save 10% on Starter and 30% on Pro with yearly billing')).toBeTruthy();
    await app.user.click(screen.getByRole('button', { name: 'Yearly' }));
    expect(within(await region('Starter')).getByText('$3.59')).toBeTruthy();
    expect(within(await region('Pro')).getByText('$13.99')).toBeTruthy();
  });

  it('opens the payment method modal with its empty state when no method is enabled', async () => {
    const app = renderBilling(trialSubscription());
    await app.user.click(within(await region('Pro')).getByRole('button', { name: 'Choose Pro' }));
    const dialog = await screen.findByRole('dialog', { name: 'Choose a payment method' });
    expect(within(dialog).getByText(NO_PAYMENT_METHODS_TEXT)).toBeTruthy();
    expect(NO_PAYMENT_METHODS_TEXT).toBe(
      'No payment methods are currently available. Please contact support or enable a method in Admin settings.',
    );
    expect(within(dialog).queryByRole('group', { name: 'Payment methods' })).toBeNull();
    const payments = app.api.requests.filter((request) => request.path.startsWith('/api/payments'));
    expect(payments.every((request) => request.method === 'GET')).toBe(true);
    await app.user.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it.each([
    ['an active Starter plan', starterSubscription(), true],
    ['a trial', trialSubscription(), false],
    ['an active Pro plan', proSubscription(), false],
    ['an inactive Starter plan', expiredSubscription({ plan: 'starter', planId: 'starter' }), false],
  ])('shows the Add Instance card only on an active Starter plan: %s', async (_name, subscription, shown) => {
    renderBilling(subscription);
    await region('Starter');
    expect(screen.queryByRole('region', { name: 'Add Instance' }) !== null).toBe(shown);
  });

  it('Add Instance opens the payment method modal', async () => {
    const app = renderBilling(starterSubscription());
    const card = await region('Add Instance');
    expect(within(card).getByText('One more instance on your Starter plan for $3.99/month.')).toBeTruthy();
    await app.user.click(within(card).getByRole('button', { name: 'Add Instance' }));
    const dialog = await screen.findByRole('dialog', { name: 'Choose a payment method' });
    expect(within(dialog).getByText('Additional instance, $3.99/month')).toBeTruthy();
    expect(within(dialog).getByText(NO_PAYMENT_METHODS_TEXT)).toBeTruthy();
  });

  it('blocks a Pro → Starter downgrade while more than 1 instance is used', async () => {
    const app = renderBilling(proSubscription({ usedInstances: 2, instancesUsed: 2 }));
    expect(within(await region('Pro')).getByRole('button', { name: 'Current Plan' })).toHaveProperty(
      'disabled',
      true,
    );
    await app.user.click(
      within(await region('Starter')).getByRole('button', { name: 'Downgrade to Starter' }),
    );
    expect(
      await screen.findByText(
        'Please delete your extra instances before downgrading. The basic Starter plan is limited to 1 instance.',
      ),
    ).toBeTruthy();
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('lets a Pro user with 1 instance go on to the payment method modal to downgrade', async () => {
    const app = renderBilling(proSubscription({ usedInstances: 1, instancesUsed: 1 }));
    await app.user.click(
      within(await region('Starter')).getByRole('button', { name: 'Downgrade to Starter' }),
    );
    expect(await screen.findByRole('dialog')).toBeTruthy();
    expect(screen.queryByText(/Please delete your extra instances/)).toBeNull();
  });
});

describe('billing page: history', () => {
  it('shows the empty state', async () => {
    renderBilling(trialSubscription());
    expect(
      await within(await region('Billing History')).findByText('No billing history available'),
    ).toBeTruthy();
  });

  it('lists invoices; the download button is disabled without a downloadUrl', async () => {
    renderBilling(proSubscription(), {
      'GET /api/payments/billing-history': {
        body: {
          invoices: [
            makeInvoice(),
            makeInvoice({
              id: '20000000-0000-4000-8000-000000000002',
              description: 'Starter plan, yearly',
              amount: 43.09,
              provider: 'paypal_standard',
              status: 'refunded',
              downloadUrl: 'https://billing.example.com/invoice/2.pdf',
            }),
          ],
        },
      },
    });
    const table = await screen.findByRole('table', { name: 'Billing history' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(2);
    const [first, second] = rows as [HTMLElement, HTMLElement];
    for (const text of ['$19.99', 'USD', 'Pro plan, monthly', 'paid', 'Stripe'])
      expect(within(first).getByText(text)).toBeTruthy();
    expect(within(first).getByRole('button', { name: /Download/ })).toHaveProperty('disabled', true);
    expect(within(second).getByText('$43.09')).toBeTruthy();
    expect(within(second).getByRole('button', { name: /Download/ })).toHaveProperty('disabled', false);
    expect(within(second).getByText('PayPal')).toBeTruthy();
    expect(screen.queryByText('No billing history available')).toBeNull();
  });

  it('shows what a partial refund gave back under the amount; a full refund shows as the status', async () => {
    renderBilling(proSubscription(), {
      'GET /api/payments/billing-history': {
        body: {
          invoices: [
            makeInvoice({ refundedAmount: 5 }),
            makeInvoice({
              id: '20000000-0000-4000-8000-000000000002',
              description: 'Starter plan, yearly',
              amount: 43.09,
              currency: 'EUR',
              status: 'refunded',
              refundedAmount: 43.09,
            }),
            makeInvoice({ id: '20000000-0000-4000-8000-000000000003', description: 'Pro plan, yearly' }),
          ],
        },
      },
    });
    const table = await screen.findByRole('table', { name: 'Billing history' });
    const [partly, fully, none] = within(table).getAllByRole('row').slice(1) as [
      HTMLElement,
      HTMLElement,
      HTMLElement,
    ];
    expect(within(partly).getByText('$19.99')).toBeTruthy();
    expect(within(partly).getByText('Refunded $5.00')).toBeTruthy();
    expect(within(partly).getByText('paid')).toBeTruthy();
    expect(within(fully).getByText('€43.09')).toBeTruthy();
    expect(within(fully).getByText('refunded')).toBeTruthy();
    expect(within(fully).queryByText(/^Refunded /)).toBeNull();
    expect(within(none).queryByText(/^Refunded /)).toBeNull();
  });
});

describe('billing routes', () => {
  it('sends a signed-in user at /pricing to /billing, linked from the top bar', async () => {
    const app = renderApp({ path: '/pricing', token: 'stored', api: signedInApi() });
    expect(await screen.findByRole('heading', { level: 1, name: 'Subscription and Billing' })).toBeTruthy();
    expect(app.location()).toBe('/billing');
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Billing' }).getAttribute('href')).toBe('/billing');
  });

  it('keeps /pricing for visitors and sends them from /billing to sign in', async () => {
    const app = renderApp({ path: '/billing' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome back' })).toBeTruthy();
    expect(app.location()).toBe('/login');
  });
});
