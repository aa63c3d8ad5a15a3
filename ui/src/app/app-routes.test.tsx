import { act, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiError, authResult, makeUser, signedInApi } from '../../test/fixtures.ts';
import { renderApp } from '../../test/render-app.tsx';

afterEach(() => {
  vi.useRealTimers();
});

describe('session at start (spec §4)', () => {
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

describe('guards and redirects (spec §2.1)', () => {
  it('sends an anonymous visitor of /dashboard to /login, and back after sign-in', async () => {
    const app = renderApp({
      path: '/dashboard?from=mail',
      api: { ...signedInApi(), 'POST /api/auth/login': { body: authResult() } },
    });
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeTruthy();
    expect(app.location()).toBe('/login');

    await app.user.type(screen.getByLabelText('Email or Username'), 'ada');
    await app.user.type(screen.getByLabelText('Password'), 'Secret-123');
    await app.user.click(screen.getByRole('button', { name: 'Sign In' }));

    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeTruthy();
    expect(app.location()).toBe('/dashboard?from=mail');
  });

  it.each(['/login', '/register', '/home', '/'])(
    'sends a signed-in user at %s to /dashboard',
    async (path) => {
      const app = renderApp({ path, token: 'stored', api: signedInApi() });
      expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeTruthy();
      expect(app.location()).toBe('/dashboard');
    },
  );

  it.each(['/', '/home'])(
    'sends an anonymous visitor at %s to /login (no landing page yet)',
    async (path) => {
      const app = renderApp({ path });
      expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeTruthy();
      expect(app.location()).toBe('/login');
    },
  );

  it('shows the public bar to visitors and the top bar to users', async () => {
    const anonymous = renderApp({ path: '/login' });
    expect(await screen.findByRole('link', { name: 'Get Started' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Sign In' })).toBeTruthy();
    anonymous.unmount();

    renderApp({ path: '/dashboard', token: 'stored', api: signedInApi() });
    expect(await screen.findByRole('button', { name: 'Account menu' })).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Get Started' })).toBeNull();
  });
});

describe('Not Found (spec §2.4)', () => {
  it('shows Page Not Found with the quick links that exist, for visitors', async () => {
    renderApp({ path: '/nowhere' });
    expect(await screen.findByRole('heading', { name: 'Page Not Found' })).toBeTruthy();
    const quick = screen.getByRole('navigation', { name: 'Quick links' });
    expect(quick.textContent).toContain('Sign In');
    expect(quick.textContent).toContain('Create Account');
    expect(quick.textContent).not.toContain('Pricing');
    expect(screen.getByText('Redirecting in 10 seconds...')).toBeTruthy();
  });

  it('counts down 10 seconds, then goes to / for visitors (which leads to /login)', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const app = renderApp({ path: '/nowhere' });
    await screen.findByRole('heading', { name: 'Page Not Found' });
    await act(async () => {
      vi.advanceTimersByTime(9_000);
    });
    expect(screen.getByText('Redirecting in 1 second...')).toBeTruthy();
    await act(async () => {
      vi.advanceTimersByTime(1_000);
    });
    await waitFor(() => expect(app.location()).toBe('/login'));
  });

  it('counts down to /dashboard for users', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const app = renderApp({ path: '/nowhere', token: 'stored', api: signedInApi() });
    await screen.findByRole('heading', { name: 'Page Not Found' });
    expect(screen.getByRole('link', { name: 'Go to Dashboard' })).toBeTruthy();
    await act(async () => {
      vi.advanceTimersByTime(10_000);
    });
    await waitFor(() => expect(app.location()).toBe('/dashboard'));
  });

  it('Go Back goes home when there is no history', async () => {
    const app = renderApp({ path: '/nowhere', token: 'stored', api: signedInApi() });
    await app.user.click(await screen.findByRole('button', { name: 'Go Back' }));
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeTruthy();
  });
});
