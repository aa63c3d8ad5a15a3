import { act, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { affiliateApi, apiError, authResult, makeUser, signedInApi } from '../../test/fixtures.ts';
import { renderApp } from '../../test/render-app.tsx';
import {
  hasScreen,
  PROTECTED_PATHS,
  type RouteTable,
  resolveRoute,
  SIGNED_IN_ROUTES,
  SIGNED_OUT_ROUTES,
} from './route-table.tsx';

afterEach(() => {
  vi.useRealTimers();
});

describe('session at start', () => {
  it('shows a spinner with Loading... while the profile loads', async () => {
    let answer: (value: { body: unknown }) => void = () => {};
    const app = renderApp({
      path: '/dashboard',
      token: 'stored',
      api: {
        ...signedInApi(),
        'GET /api/auth/profile': () =>
          new Promise((resolve) => {
            answer = resolve;
          }),
      },
    });
    expect(await screen.findByText('Loading...')).toBeTruthy();
    expect(screen.getByRole('status')).toBeTruthy();
    await waitFor(() => expect(app.api.calls('GET /api/auth/profile')).toHaveLength(1));
    answer({ body: { user: makeUser() } });
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeTruthy();
  });

  it('loads the profile with the stored token', async () => {
    const app = renderApp({ path: '/dashboard', token: 'stored', api: signedInApi() });
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeTruthy();
    expect(app.api.calls('GET /api/auth/profile')[0]?.headers.get('authorization')).toBe('Bearer stored');
  });

  it('a stored token whose profile answers 401 ends signed out, without a message', async () => {
    const app = renderApp({
      path: '/dashboard',
      token: 'expired',
      api: { 'GET /api/auth/profile': { status: 401, body: apiError('Token expired', 'unauthorized') } },
    });
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeTruthy();
    expect(app.location()).toBe('/login');
    expect(app.store.token).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('any other error keeps the token and offers a retry', async () => {
    const app = renderApp({
      path: '/dashboard',
      token: 'stored',
      api: { 'GET /api/auth/profile': { status: 500, body: apiError('Database down', 'internal_error') } },
    });
    expect(await screen.findByText("We couldn't load your account")).toBeTruthy();
    expect(app.store.token).toBe('stored');

    app.api.on(signedInApi());
    await app.user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeTruthy();
    expect(app.location()).toBe('/dashboard');
  });
});

/** The level-1 heading of every screen, per table: each screen of the route tables must be listed. */
const OPEN_HEADINGS: Record<string, string> = {
  '/terms': 'Terms of Service',
  '/privacy-policy': 'Privacy Policy',
  '/cookies': 'Cookie Policy',
  '/gdpr': 'GDPR',
  '/affiliate/terms': 'Affiliate Program Terms',
  '/affiliate/privacy-policy': 'Affiliate Privacy Policy',
  '/affiliate/privacy': 'Affiliate Privacy Policy',
  '/api/docs': 'Berth API',
  '/api-reference': 'API Reference',
};
const SIGNED_OUT_HEADINGS: Record<string, string> = {
  '/': 'Deploy applications and databases in a few clicks',
  '/home': 'Deploy applications and databases in a few clicks',
  '/pricing': 'Pricing',
  '/help': 'Help Center',
  '/login': 'Welcome back',
  '/register': 'Create your account',
  '/reset-password': 'Reset link not valid',
  '/affiliate': 'Affiliate Login',
  '/affiliate/login': 'Affiliate Login',
  '/affiliate/dashboard': 'Affiliate Login',
  '/affiliate/register': 'Join the Affiliate Program',
  ...OPEN_HEADINGS,
};
const SIGNED_IN_HEADINGS: Record<string, string> = {
  '/dashboard': 'Dashboard',
  '/instances': 'Instances',
  '/instances/new': 'Deploy New Instance',
  // The fake API knows no instance ':id'.
  '/instances/:id': 'Instance not found',
  '/profile': 'Profile Settings',
  '/billing': 'Subscription and Billing',
  '/api-access': 'API Access',
  '/payment-success': 'Payment Successful',
  '/payment-error': 'Payment Failed',
  '/payment-cancelled': 'Payment Cancelled',
  '/get-help': 'Get Help',
  '/admin-panel': 'Admin Panel',
  '/affiliate': 'Affiliate Dashboard',
  '/affiliate/dashboard': 'Affiliate Dashboard',
  '/affiliate/settings': 'Affiliate Settings',
  '/affiliate/apply': 'Become an Affiliate',
  ...OPEN_HEADINGS,
};

const screensOf = (table: RouteTable) =>
  table.filter((entry) => hasScreen(entry.path, table)).map((e) => e.path);
const redirectsOf = (table: RouteTable) =>
  table.flatMap((entry) => {
    const route = resolveRoute(entry.path, table);
    return route?.kind === 'redirect' ? [[entry.path, route.to] as const] : [];
  });

const isAdminOnly = (path: string) => {
  const route = resolveRoute(path, SIGNED_IN_ROUTES);
  return route?.kind === 'screen' && route.adminOnly;
};

const h1 = (name: string) => screen.findByRole('heading', { level: 1, name });

describe('signed-out route table', () => {
  it('lists a heading for every screen', () => {
    expect(screensOf(SIGNED_OUT_ROUTES).sort()).toEqual(Object.keys(SIGNED_OUT_HEADINGS).sort());
  });

  it.each(screensOf(SIGNED_OUT_ROUTES))('shows the screen of %s', async (path) => {
    const app = renderApp({ path });
    expect(await h1(SIGNED_OUT_HEADINGS[path] ?? '')).toBeTruthy();
    expect(app.location()).toBe(path);
  });

  it.each(PROTECTED_PATHS)('sends a visitor of %s to /login', async (path) => {
    const app = renderApp({ path });
    expect(await h1('Welcome back')).toBeTruthy();
    expect(app.location()).toBe('/login');
  });

  it.each(['/affiliate/nowhere', '/reset-password/x'])(
    'shows Not Found at %s (not built yet, or unknown)',
    async (path) => {
      const app = renderApp({ path });
      expect(await h1('Page Not Found')).toBeTruthy();
      expect(app.location()).toBe(path);
    },
  );
});

describe('signed-in route table', () => {
  it('lists a heading for every screen', () => {
    expect(screensOf(SIGNED_IN_ROUTES).sort()).toEqual(Object.keys(SIGNED_IN_HEADINGS).sort());
  });

  it.each(screensOf(SIGNED_IN_ROUTES))('shows the screen of %s', async (path) => {
    // Admin-only screens are shown to an admin.
    const user = isAdminOnly(path) ? makeUser({ role: 'admin' }) : makeUser();
    // The affiliate screens answer for an affiliate (apply is for a user who is not one yet).
    const api = path === '/affiliate/apply' ? signedInApi(user) : { ...signedInApi(user), ...affiliateApi() };
    const app = renderApp({ path, token: 'stored', api });
    expect(await h1(SIGNED_IN_HEADINGS[path] ?? '')).toBeTruthy();
    expect(app.location()).toBe(path);
  });

  it('has the admin-only screens of the spec', () => {
    expect(screensOf(SIGNED_IN_ROUTES).filter(isAdminOnly)).toEqual(['/admin-panel']);
  });

  it.each(screensOf(SIGNED_IN_ROUTES).filter(isAdminOnly))(
    'sends a signed-in user who is not an admin at %s to /dashboard',
    async (path) => {
      const app = renderApp({ path, token: 'stored', api: signedInApi() });
      expect(await h1('Dashboard')).toBeTruthy();
      expect(app.location()).toBe('/dashboard');
    },
  );

  it('has the redirects of the spec', () => {
    expect(Object.fromEntries(redirectsOf(SIGNED_IN_ROUTES))).toEqual({
      '/': '/dashboard',
      '/home': '/dashboard',
      '/login': '/dashboard',
      '/register': '/dashboard',
      '/pricing': '/billing',
      '/affiliate/login': '/affiliate/dashboard',
      '/affiliate/register': '/affiliate/dashboard',
    });
  });

  it.each(redirectsOf(SIGNED_IN_ROUTES))('sends a signed-in user at %s to %s', async (path, to) => {
    const app = renderApp({ path, token: 'stored', api: { ...signedInApi(), ...affiliateApi() } });
    await waitFor(() => expect(app.location()).toBe(to));
    if (to === '/dashboard') expect(await h1('Dashboard')).toBeTruthy();
    else if (to === '/billing') expect(await h1('Subscription and Billing')).toBeTruthy();
    else expect(await h1('Affiliate Dashboard')).toBeTruthy();
  });

  it('keeps ref when /affiliate/login sends a signed-in user on; a user who is no affiliate goes to apply', async () => {
    const app = renderApp({
      path: '/affiliate/login?ref=FRIEND7',
      token: 'stored',
      api: {
        ...signedInApi(),
        'POST /api/affiliates/track-click/FRIEND7': { body: { tracked: true, counted: true } },
      },
    });
    expect(await h1('Become an Affiliate')).toBeTruthy();
    expect(app.location()).toBe('/affiliate/apply');
    // The ref is captured after the first render (its own lazily loaded part): counted once.
    await waitFor(() => expect(app.api.calls('POST /api/affiliates/track-click/FRIEND7')).toHaveLength(1));
  });

  it.each(['/help', '/reset-password', '/nowhere'])(
    'shows Not Found to a signed-in user at %s',
    async (path) => {
      const app = renderApp({ path, token: 'stored', api: signedInApi() });
      expect(await h1('Page Not Found')).toBeTruthy();
      expect(app.location()).toBe(path);
    },
  );

  it('goes from the sign-in form straight to the dashboard, with no loading screen between', async () => {
    const app = renderApp({
      path: '/login',
      api: { ...signedInApi(), 'POST /api/auth/login': { body: authResult() } },
    });
    expect(await h1('Welcome back')).toBeTruthy();
    await app.user.type(screen.getByLabelText('Email or Username'), 'ada');
    await app.user.type(screen.getByLabelText('Password'), 'Secret-123');
    // Every screen rendered from here on, noted as it is added to the page.
    let sawLoadingScreen = false;
    const watch = new MutationObserver(() => {
      if (screen.queryByText('Loading...')) sawLoadingScreen = true;
    });
    watch.observe(document.body, { childList: true, subtree: true });
    await app.user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await h1('Dashboard')).toBeTruthy();
    watch.disconnect();
    expect(sawLoadingScreen).toBe(false);
  });

  it('sends an anonymous visitor of /profile to /login, and back after sign-in', async () => {
    const app = renderApp({
      path: '/profile?tab=1',
      api: { ...signedInApi(), 'POST /api/auth/login': { body: authResult() } },
    });
    expect(await h1('Welcome back')).toBeTruthy();
    expect(app.location()).toBe('/login');

    await app.user.type(screen.getByLabelText('Email or Username'), 'ada');
    await app.user.type(screen.getByLabelText('Password'), 'Secret-123');
    await app.user.click(screen.getByRole('button', { name: 'Sign In' }));

    expect(await h1('Profile Settings')).toBeTruthy();
    expect(app.location()).toBe('/profile?tab=1');
  });

  it('shows the public bar to visitors and the top bar to users', async () => {
    const anonymous = renderApp({ path: '/login' });
    expect(await screen.findByRole('link', { name: 'Get Started' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Sign In' })).toBeTruthy();
    anonymous.unmount();

    renderApp({ path: '/dashboard', token: 'stored', api: signedInApi() });
    expect(await screen.findByRole('button', { name: /^Account menu/ })).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Get Started' })).toBeNull();
  });
});

describe('Not Found', () => {
  const quickLinks = () =>
    within(screen.getByRole('navigation', { name: 'Quick links' }))
      .getAllByRole('link')
      .map((link) => `${link.textContent} ${link.getAttribute('href')}`);

  it.each([
    [
      'anonymous',
      '/nowhere',
      null,
      'Go Home',
      '/',
      ['Pricing /pricing', 'Sign In /login', 'Create Account /register'],
    ],
    [
      'anonymous, affiliate area',
      '/affiliate/nowhere',
      null,
      'Go to Affiliate Program',
      '/affiliate',
      [
        'Affiliate Login /affiliate/login',
        'Join the Program /affiliate/register',
        'Affiliate Terms /affiliate/terms',
      ],
    ],
    [
      'signed in',
      '/nowhere',
      'stored',
      'Go to Dashboard',
      '/dashboard',
      ['Instances /instances', 'Profile /profile', 'Billing /billing'],
    ],
    [
      'signed in, affiliate area',
      '/affiliate/nowhere',
      'stored',
      'Go to Affiliate Dashboard',
      '/affiliate/dashboard',
      [
        'Affiliate Dashboard /affiliate/dashboard',
        'Affiliate Settings /affiliate/settings',
        'Affiliate Terms /affiliate/terms',
      ],
    ],
  ] as const)(
    '%s: home button and the quick links that exist',
    async (_context, path, token, home, to, links) => {
      renderApp({ path, token, api: signedInApi() });
      expect(await h1('Page Not Found')).toBeTruthy();
      expect(screen.getByRole('link', { name: home }).getAttribute('href')).toBe(to);
      expect(quickLinks()).toEqual(links);
      expect(screen.getByText('Redirecting in 10 seconds...')).toBeTruthy();
    },
  );

  it('counts down 10 seconds, then goes to / (the landing page) for visitors', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const app = renderApp({ path: '/nowhere' });
    await h1('Page Not Found');
    // The page is a lazy chunk: let its effects (the countdown starts there) run before time moves on.
    await act(async () => {});
    await act(async () => {
      vi.advanceTimersByTime(9_000);
    });
    expect(screen.getByText('Redirecting in 1 second...')).toBeTruthy();
    await act(async () => {
      vi.advanceTimersByTime(1_000);
    });
    await waitFor(() => expect(app.location()).toBe('/'));
    expect(await h1('Deploy applications and databases in a few clicks')).toBeTruthy();
  });

  it('counts down to /affiliate/dashboard for users in the affiliate area', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const app = renderApp({
      path: '/affiliate/nowhere',
      token: 'stored',
      api: { ...signedInApi(), ...affiliateApi() },
    });
    await h1('Page Not Found');
    await act(async () => {});
    await act(async () => {
      vi.advanceTimersByTime(10_000);
    });
    await waitFor(() => expect(app.location()).toBe('/affiliate/dashboard'));
  });

  it('Go Back goes home when there is no history', async () => {
    const app = renderApp({ path: '/nowhere', token: 'stored', api: signedInApi() });
    await app.user.click(await screen.findByRole('button', { name: 'Go Back' }));
    expect(await h1('Dashboard')).toBeTruthy();
  });
});
