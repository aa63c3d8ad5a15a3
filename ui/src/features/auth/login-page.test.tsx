import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { FakeRoutes } from '../../../test/fake-api.ts';
import { apiError, authResult, makeUser, signedInApi } from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';

function renderLogin(api: FakeRoutes = {}) {
  return renderApp({ path: '/login', api: { ...signedInApi(), ...api } });
}

describe('LoginPage', () => {
  it.each([
    ['', '', ['Email or username is required', 'Password is required']],
    ['ab', 'secret', ['Must be at least 3 characters']],
    ['   ', 'secret', ['Email or username is required']],
    ['ada', '', ['Password is required']],
  ])('login %j / password %j shows %j and sends nothing', async (login, password, messages) => {
    const app = renderLogin();
    const { user } = app;
    if (login) await user.type(await screen.findByLabelText('Email or Username'), login);
    if (password) await user.type(screen.getByLabelText('Password'), password);
    await user.click(await screen.findByRole('button', { name: 'Sign In' }));
    for (const message of messages) expect(await screen.findByText(message)).toBeTruthy();
    expect(app.api.calls('POST /api/auth/login')).toHaveLength(0);
  });

  it('shows a rule once the field is left', async () => {
    const { user } = renderLogin();
    await user.type(await screen.findByLabelText('Email or Username'), 'ab');
    expect(screen.queryByText('Must be at least 3 characters')).toBeNull();
    await user.tab();
    expect(await screen.findByText('Must be at least 3 characters')).toBeTruthy();
  });

  it('shows and hides the password', async () => {
    const { user } = renderLogin();
    const password = await screen.findByLabelText('Password');
    expect(password.getAttribute('type')).toBe('password');
    await user.click(screen.getByRole('button', { name: 'Show password' }));
    expect(password.getAttribute('type')).toBe('text');
    await user.click(screen.getByRole('button', { name: 'Hide password' }));
    expect(password.getAttribute('type')).toBe('password');
  });

  it('signs in: stores the token, toasts and lands on /dashboard', async () => {
    const app = renderLogin({
      'POST /api/auth/login': { body: authResult(makeUser({ firstName: 'Ada' }), 'fresh-token') },
    });
    const { user } = app;
    await user.type(await screen.findByLabelText('Email or Username'), ' ada@example.com ');
    await user.type(screen.getByLabelText('Password'), 'Secret-123');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));

    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeTruthy();
    expect(app.location()).toBe('/dashboard');
    expect(app.store.token).toBe('fresh-token');
    expect(await screen.findByText('Login successful!')).toBeTruthy();
    expect(app.api.calls('POST /api/auth/login')[0]?.body).toEqual({
      emailOrUsername: 'ada@example.com',
      password: 'Secret-123',
    });
    // Later calls carry the new token.
    await waitFor(() => expect(app.api.calls('GET /api/subscriptions/status').length).toBeGreaterThan(0));
    expect(app.api.calls('GET /api/subscriptions/status')[0]?.headers.get('authorization')).toBe(
      'Bearer fresh-token',
    );
  });

  it("shows the server's message when sign-in fails and stays signed out", async () => {
    const app = renderLogin({
      'POST /api/auth/login': {
        status: 401,
        body: apiError('Invalid email/username or password', 'unauthorized'),
      },
    });
    const { user } = app;
    await user.type(await screen.findByLabelText('Email or Username'), 'ada');
    await user.type(screen.getByLabelText('Password'), 'wrong');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));

    const toast = await screen.findByRole('alert');
    expect(toast.textContent).toContain('Invalid email/username or password');
    expect(app.location()).toBe('/login');
    expect(app.store.token).toBeNull();
  });

  it("falls back to 'Login failed' when the answer has no message", async () => {
    const { user } = renderLogin({ 'POST /api/auth/login': { status: 502, body: undefined } });
    await user.type(await screen.findByLabelText('Email or Username'), 'ada');
    await user.type(screen.getByLabelText('Password'), 'secret');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await screen.findByText('Login failed')).toBeTruthy();
  });

  it('shows no OAuth sign-in (switched off)', async () => {
    renderLogin();
    await screen.findByRole('button', { name: 'Sign In' });
    expect(screen.getAllByRole('button').map((button) => button.textContent)).not.toContainEqual(
      expect.stringMatching(/google|github|oauth|continue with/i),
    );
  });

  it('links to /register', async () => {
    const app = renderLogin();
    await app.user.click(await screen.findByRole('link', { name: 'Create one' }));
    // The next page's code loads first; the router keeps this one on screen meanwhile.
    await waitFor(() => expect(app.location()).toBe('/register'));
  });
});
