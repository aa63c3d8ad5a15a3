import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import {
  expiredSubscription,
  makeUser,
  proSubscription,
  signedInApi,
  subscriptionStatus,
  trialSubscription,
} from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';

function renderDashboard(user = makeUser(), api = {}) {
  return renderApp({ path: '/dashboard', token: 'stored', api: { ...signedInApi(user), ...api } });
}

const card = () => screen.findByRole('region', { name: /Free|Pro|Starter/ });
const fact = (region: HTMLElement, label: string) => within(region).getByText(label).nextSibling?.textContent;

describe('DashboardPage (spec §2.8)', () => {
  it('welcomes the user by name', async () => {
    renderDashboard(makeUser({ firstName: 'Grace' }));
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeTruthy();
    expect(screen.getByText('Welcome back, Grace!')).toBeTruthy();
  });

  it('shows a running trial: badge, end, allowance and remaining time', async () => {
    renderDashboard(makeUser({ subscription: trialSubscription(42) }));
    const region = await card();
    expect(within(region).getByText('Trial')).toBeTruthy();
    expect(within(region).getByText(/^Trial active — ends /)).toBeTruthy();
    expect(fact(region, 'Instance allowance')).toBe('1');
    expect(fact(region, 'Trial time remaining')).toBe('0h 42m');
    expect(within(region).queryByText('Trial ending soon!')).toBeNull();
  });

  it("warns 'Trial ending soon!' with 5 minutes or less left", async () => {
    renderDashboard(makeUser({ subscription: trialSubscription(3) }));
    const region = await card();
    expect(within(region).getByText('Trial ending soon!')).toBeTruthy();
    expect(fact(region, 'Trial time remaining')).toBe('0h 3m');
  });

  it('shows an expired subscription in red', async () => {
    renderDashboard(makeUser({ subscription: expiredSubscription() }));
    const region = await card();
    const badge = within(region).getByText('Expired');
    expect(badge.closest('.MuiChip-root')?.className).toContain('MuiChip-colorError');
    expect(within(region).getByText('Trial expired — no active subscription')).toBeTruthy();
    expect(within(region).queryByText('Trial time remaining')).toBeNull();
  });

  it('shows an active plan with its label and unlimited allowance', async () => {
    renderDashboard(makeUser({ subscription: proSubscription() }));
    const region = await card();
    expect(within(region).getByText('Active')).toBeTruthy();
    expect(within(region).getByRole('heading', { name: 'Pro' })).toBeTruthy();
    expect(fact(region, 'Instance allowance')).toBe('Unlimited');
    expect(within(region).getByText('Next billing date')).toBeTruthy();
  });

  it('prefers the fresh subscription status over the profile', async () => {
    renderDashboard(makeUser({ subscription: trialSubscription(42) }), {
      'GET /api/subscriptions/status': { body: subscriptionStatus(proSubscription()) },
    });
    expect(await screen.findByText('Active')).toBeTruthy();
  });

  it("toasts 'Failed to load subscription status' and keeps the profile's data", async () => {
    renderDashboard(makeUser({ subscription: trialSubscription(42) }), {
      'GET /api/subscriptions/status': { status: 403, body: { error: 'forbidden', message: 'nope' } },
    });
    expect(await screen.findByText('Failed to load subscription status')).toBeTruthy();
    expect(within(await card()).getByText('Trial')).toBeTruthy();
  });
});
