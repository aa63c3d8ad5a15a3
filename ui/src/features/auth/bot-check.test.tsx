import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { FakeRoutes } from '../../../test/fake-api.ts';
import { apiError, authResult, publicConfig, signedInApi } from '../../../test/fixtures.ts';
import { fillRegistration, submitRegistration, VALID_REGISTRATION } from '../../../test/register-form.ts';
import { renderApp } from '../../../test/render-app.tsx';

const WITH_KEY = { 'GET /api/config': { body: publicConfig({ turnstileSiteKey: '0x4AAAA-site-key' }) } };
const MISSING = 'Please complete the CAPTCHA verification';

function renderWithKey(path: string, api: FakeRoutes = {}) {
  return renderApp({ path, api: { ...signedInApi(), ...WITH_KEY, ...api } });
}

async function signIn(app: ReturnType<typeof renderApp>) {
  await app.user.type(await screen.findByLabelText('Email or Username'), 'ada');
  await app.user.type(screen.getByLabelText('Password'), 'Secret-123');
  await app.user.click(screen.getByRole('button', { name: 'Sign In' }));
}

describe('bot check', () => {
  it('is hidden and not required when the server has no site key', async () => {
    const app = renderApp({
      path: '/login',
      api: { ...signedInApi(), 'POST /api/auth/login': { body: authResult() } },
    });
    await signIn(app);
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeTruthy();
    expect(screen.queryByTestId('bot-check-widget')).toBeNull();
    expect(app.api.calls('POST /api/auth/login')[0]?.body).not.toHaveProperty('turnstileToken');
  });

  it.each(['/login', '/register', '/help'])('shows the widget on %s with the site key', async (path) => {
    renderWithKey(path);
    const widget = await screen.findByTestId('bot-check-widget');
    expect(widget.getAttribute('data-site-key')).toBe('0x4AAAA-site-key');
    expect(screen.getByRole('group', { name: 'Bot check' })).toBeTruthy();
  });

  it('sign-in refuses to send without a token, then sends the token', async () => {
    const app = renderWithKey('/login', { 'POST /api/auth/login': { body: authResult() } });
    await screen.findByTestId('bot-check-widget');
    await signIn(app);
    expect(await screen.findByText(MISSING)).toBeTruthy();
    expect(app.api.calls('POST /api/auth/login')).toHaveLength(0);

    await app.user.click(screen.getByRole('button', { name: 'Solve bot check' }));
    expect(screen.queryByText(MISSING)).toBeNull();
    await app.user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeTruthy();
    expect(app.api.calls('POST /api/auth/login')[0]?.body).toMatchObject({
      emailOrUsername: 'ada',
      turnstileToken: expect.stringMatching(/^bot-token-/),
    });
  });

  it('starts over after a refused sign-in (a token is single use) and after expiry', async () => {
    const app = renderWithKey('/login', {
      'POST /api/auth/login': {
        status: 401,
        body: apiError('Invalid email/username or password', 'unauthorized'),
      },
    });
    await app.user.click(await screen.findByRole('button', { name: 'Solve bot check' }));
    await signIn(app);
    expect(await screen.findByText('Invalid email/username or password')).toBeTruthy();
    await app.user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await screen.findByText(MISSING)).toBeTruthy();
    expect(app.api.calls('POST /api/auth/login')).toHaveLength(1);

    await app.user.click(screen.getByRole('button', { name: 'Solve bot check' }));
    await app.user.click(screen.getByRole('button', { name: 'Expire bot check' }));
    await app.user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(app.api.calls('POST /api/auth/login')).toHaveLength(1);
  });

  it('registration requires it too', async () => {
    const app = renderWithKey('/register', {
      'POST /api/auth/register': { status: 201, body: authResult() },
    });
    await fillRegistration(app.user, VALID_REGISTRATION);
    await submitRegistration(app.user);
    expect(await screen.findByText(MISSING)).toBeTruthy();
    expect(app.api.calls('POST /api/auth/register')).toHaveLength(0);
    await app.user.click(screen.getByRole('button', { name: 'Solve bot check' }));
    await submitRegistration(app.user);
    await waitFor(() => expect(app.api.calls('POST /api/auth/register')).toHaveLength(1));
    expect(app.api.calls('POST /api/auth/register')[0]?.body).toHaveProperty('turnstileToken');
  });

  it('the forgot-password dialog requires it too', async () => {
    const app = renderWithKey('/login', {
      'POST /api/password-reset/request': { body: { success: true, message: 'Sent' } },
    });
    await app.user.click(await screen.findByRole('button', { name: 'Forgot password?' }));
    const dialog = await screen.findByRole('dialog', { name: 'Forgot your password?' });
    await app.user.type(within(dialog).getByLabelText('Email'), 'ada@example.com');
    await app.user.click(within(dialog).getByRole('button', { name: 'Send Reset Link' }));
    expect(await within(dialog).findByText(MISSING)).toBeTruthy();
    expect(app.api.calls('POST /api/password-reset/request')).toHaveLength(0);

    await app.user.click(within(dialog).getByRole('button', { name: 'Solve bot check' }));
    await app.user.click(within(dialog).getByRole('button', { name: 'Send Reset Link' }));
    expect(await screen.findByText('Check Your Email')).toBeTruthy();
    expect(app.api.calls('POST /api/password-reset/request')[0]?.body).toMatchObject({
      email: 'ada@example.com',
      turnstileToken: expect.stringMatching(/^bot-token-/),
    });
  });

  it('the contact form requires it too', async () => {
    const app = renderWithKey('/help', {
      'POST /api/contact/submit': { body: { success: true, message: 'Sent' } },
    });
    const form = await screen.findByRole('form', { name: 'Contact support' });
    for (const [label, value] of [
      ['Name', 'Ada'],
      ['Email', 'ada@example.com'],
      ['Subject', 'Hello'],
      ['Message', 'A question'],
    ] as const) {
      await app.user.click(within(form).getByLabelText(label));
      await app.user.paste(value);
    }
    await app.user.click(within(form).getByRole('button', { name: 'Send Message' }));
    expect(await within(form).findByText(MISSING)).toBeTruthy();
    expect(app.api.calls('POST /api/contact/submit')).toHaveLength(0);

    await app.user.click(within(form).getByRole('button', { name: 'Solve bot check' }));
    await app.user.click(within(form).getByRole('button', { name: 'Send Message' }));
    await waitFor(() => expect(app.api.calls('POST /api/contact/submit')).toHaveLength(1));
    expect(app.api.calls('POST /api/contact/submit')[0]?.body).toHaveProperty('turnstileToken');
  });
});
