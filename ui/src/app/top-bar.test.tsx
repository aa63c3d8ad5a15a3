import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { expiredSubscription, makeUser, proSubscription, signedInApi } from '../../test/fixtures.ts';
import { renderApp } from '../../test/render-app.tsx';

function renderSignedIn(user = makeUser()) {
  return renderApp({ path: '/dashboard', token: 'stored', api: signedInApi(user) });
}

async function openAccountMenu(app: ReturnType<typeof renderSignedIn>) {
  await app.user.click(await screen.findByRole('button', { name: /^Account menu/ }));
  return screen.findByRole('presentation');
}

describe('TopBar', () => {
  it('has the logo to /dashboard, the Dashboard link and the plan badge', async () => {
    renderSignedIn(makeUser({ subscription: proSubscription() }));
    const logo = await screen.findByRole('link', { name: 'Berth' });
    expect(logo.getAttribute('href')).toBe('/dashboard');
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Dashboard' })).toBeTruthy();
    // Admin Panel stays hidden for non-admins.
    expect(within(nav).getByRole('link', { name: 'API Access' }).getAttribute('href')).toBe('/api-access');
    expect(within(nav).getByRole('link', { name: 'Get Help' }).getAttribute('href')).toBe('/get-help');
    expect(within(nav).queryByRole('link', { name: 'Admin Panel' })).toBeNull();
    expect(await screen.findByLabelText('Plan: Pro')).toBeTruthy();
  });

  it('links Instances, Billing, Profile, API Access and Get Help', async () => {
    renderSignedIn();
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    expect(
      within(nav)
        .getAllByRole('link')
        .map((link) => `${link.textContent} ${link.getAttribute('href')}`),
    ).toEqual([
      'Dashboard /dashboard',
      'Instances /instances',
      'Billing /billing',
      'Profile /profile',
      'API Access /api-access',
      'Get Help /get-help',
    ]);
    expect(await screen.findByRole('button', { name: /^Notifications/ })).toBeTruthy();
  });

  it('inside the affiliate area: no main links, and the logo leads to the dashboard that exists', async () => {
    renderApp({
      path: '/affiliate/terms',
      token: 'stored',
      api: signedInApi(makeUser({ isAffiliate: true })),
    });
    expect(await screen.findByRole('heading', { level: 1, name: 'Affiliate Program Terms' })).toBeTruthy();
    expect(screen.queryByRole('navigation', { name: 'Main' })).toBeNull();
    expect(screen.getByRole('link', { name: 'Berth' }).getAttribute('href')).toBe('/affiliate/dashboard');
  });

  it("shows 'Free' as the plan of a trial user", async () => {
    renderSignedIn();
    expect(await screen.findByLabelText('Plan: Free')).toBeTruthy();
  });

  it('shows the initials in the avatar, else U', async () => {
    const first = renderSignedIn(makeUser({ firstName: 'ada', lastName: 'lovelace' }));
    expect(await screen.findByRole('button', { name: /^Account menu/ })).toHaveProperty('textContent', 'AL');
    first.unmount();
    renderSignedIn(makeUser({ firstName: '', lastName: '' }));
    expect(await screen.findByRole('button', { name: /^Account menu/ })).toHaveProperty('textContent', 'U');
  });

  it('account menu during a trial: welcome, plan and used / max', async () => {
    const app = renderSignedIn(makeUser({ instancesUsed: 0 }));
    const menu = await openAccountMenu(app);
    expect(within(menu).getByText('Welcome, Ada!')).toBeTruthy();
    expect(within(menu).getByText('Current plan').nextSibling?.textContent).toBe('Free');
    expect(within(menu).getByText('Instances used').nextSibling?.textContent).toBe('0 / 1');
    expect(within(menu).queryByText('Trial expired — no active subscription')).toBeNull();
  });

  it("account menu when inactive: '0 / 0' and the inactive notice", async () => {
    const app = renderSignedIn(makeUser({ subscription: expiredSubscription(), instancesUsed: 2 }));
    const menu = await openAccountMenu(app);
    expect(within(menu).getByText('Instances used').nextSibling?.textContent).toBe('0 / 0');
    expect(within(menu).getByText('Trial expired — no active subscription')).toBeTruthy();
  });

  it("account menu with unlimited instances: 'used / Unlimited'", async () => {
    const app = renderSignedIn(makeUser({ subscription: proSubscription(), instancesUsed: 3 }));
    const menu = await openAccountMenu(app);
    expect(within(menu).getByText('Current plan').nextSibling?.textContent).toBe('Pro');
    expect(within(menu).getByText('Instances used').nextSibling?.textContent).toBe('3 / Unlimited');
  });

  it("logout clears the session, goes to /login and toasts 'Logged out successfully'", async () => {
    const app = renderSignedIn();
    const menu = await openAccountMenu(app);
    await app.user.click(within(menu).getByRole('menuitem', { name: 'Logout' }));
    expect(await screen.findByText('Logged out successfully')).toBeTruthy();
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeTruthy();
    expect(app.location()).toBe('/login');
    expect(app.store.token).toBeNull();
  });
});

describe('theme', () => {
  it('is dark by default, toggles, and stores every change', async () => {
    const app = renderApp({ path: '/login' });
    await app.user.click(await screen.findByRole('button', { name: 'Switch to light mode' }));
    expect(localStorage.getItem('theme')).toBe('light');
    await app.user.click(screen.getByRole('button', { name: 'Switch to dark mode' }));
    expect(localStorage.getItem('theme')).toBe('dark');
  });

  it('starts with the stored choice', async () => {
    localStorage.setItem('theme', 'light');
    renderSignedIn();
    expect(await screen.findByRole('button', { name: 'Switch to dark mode' })).toBeTruthy();
  });
});
