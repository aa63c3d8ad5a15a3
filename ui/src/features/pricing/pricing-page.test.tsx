import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { makeUser, proSubscription, publicConfig, publicOffer, signedInApi } from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';

/** Prices unlike the spec's defaults: the page must show the server's, not constants. */
const CONFIG = publicConfig({
  plans: {
    currency: 'EUR',
    currencySymbol: '€',
    starter: { monthly: 5, yearlyDiscount: 0.1, yearly: 54 },
    pro: { monthly: 20, yearlyDiscount: 0.3, yearly: 168 },
    addonInstance: 4.5,
  },
  offer: publicOffer({ publicApi: true }),
});

const card = (name: string) => screen.findByRole('region', { name });

describe('pricing page', () => {
  it('shows Starter and Pro with the server’s monthly prices and the spec’s features', async () => {
    renderApp({ path: '/pricing', api: { 'GET /api/config': { body: CONFIG } } });
    expect(await screen.findByRole('heading', { level: 1, name: 'Pricing' })).toBeTruthy();
    const starter = await card('Starter');
    expect(within(starter).getByText('€5.00')).toBeTruthy();
    for (const feature of ['1 instance', 'Custom domain', 'Free SSL certificate', 'Email support'])
      expect(within(starter).getByText(feature)).toBeTruthy();
    expect(within(starter).getByText('Additional instances at €4.50/month each')).toBeTruthy();
    const pro = await card('Pro');
    expect(within(pro).getByText('€20.00')).toBeTruthy();
    for (const feature of ['Unlimited instances', 'Unlimited custom domains', 'Priority support'])
      expect(within(pro).getByText(feature)).toBeTruthy();
    expect(within(pro).getByText('API access: 150 requests per minute')).toBeTruthy();
  });

  it('says API access is coming soon while this server offers no public API', async () => {
    renderApp({ path: '/pricing', api: { 'GET /api/config': { body: publicConfig() } } });
    const pro = await card('Pro');
    expect(within(pro).getByText('API access: Coming soon')).toBeTruthy();
    expect(within(pro).queryByText('API access: 150 requests per minute')).toBeNull();
  });

  it('shows yearly prices as their monthly equivalent: Starter 10 % off, Pro 30 % off', async () => {
    const app = renderApp({ path: '/pricing' });
    await app.user.click(await screen.findByRole('button', { name: /Yearly/ }));
    const starter = await card('Starter');
    expect(within(starter).getByText('$3.59')).toBeTruthy();
    expect(within(starter).getByText('Billed yearly: $43.09 — save 10%')).toBeTruthy();
    const pro = await card('Pro');
    expect(within(pro).getByText('$13.99')).toBeTruthy();
    expect(within(pro).getByText('Billed yearly: $167.92 — save 30%')).toBeTruthy();

    await app.user.click(screen.getByRole('button', { name: 'Monthly' }));
    expect(within(await card('Starter')).getByText('$3.99')).toBeTruthy();
  });

  it('Get Started goes to /register', async () => {
    const app = renderApp({ path: '/pricing' });
    await app.user.click(await screen.findByRole('link', { name: 'Get Started with Pro' }));
    expect(await screen.findByRole('heading', { name: 'Create your account' })).toBeTruthy();
    expect(app.location()).toBe('/register');
  });

  it('offers a retry when the prices cannot be loaded', async () => {
    const app = renderApp({ path: '/pricing', api: { 'GET /api/config': { status: 503, body: undefined } } });
    expect(
      await screen.findByText('We could not load the prices. Please try again.', {}, { timeout: 3000 }),
    ).toBeTruthy();
    app.api.on({ 'GET /api/config': { body: CONFIG } });
    await app.user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await card('Starter')).toBeTruthy();
  });

  it('sends a signed-in user to /billing, where the plans show without sign-up buttons', async () => {
    const user = makeUser({ subscription: proSubscription() });
    const app = renderApp({ path: '/pricing', token: 'stored', api: signedInApi(user) });
    expect(await screen.findByRole('heading', { level: 1, name: 'Subscription and Billing' })).toBeTruthy();
    expect(app.location()).toBe('/billing');
    expect(within(await card('Pro')).getByText('Current plan')).toBeTruthy();
    expect(screen.queryByRole('link', { name: /Get Started/ })).toBeNull();
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Billing' }).getAttribute('href')).toBe('/billing');
  });
});
