import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { FakeRoutes } from '../../../test/fake-api.ts';
import { apiError } from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';

const SENT = { body: { success: true, message: 'If an account exists, a reset link has been sent.' } };

async function openDialog(api: FakeRoutes = {}) {
  const app = renderApp({ path: '/login', api });
  await app.user.click(await screen.findByRole('button', { name: 'Forgot password?' }));
  const dialog = await screen.findByRole('dialog', { name: 'Forgot your password?' });
  return { app, dialog };
}

describe('forgot password dialog', () => {
  it('keeps Send disabled while the e-mail is empty', async () => {
    const { app, dialog } = await openDialog();
    const send = within(dialog).getByRole('button', { name: 'Send Reset Link' });
    expect(send).toHaveProperty('disabled', true);
    await app.user.type(within(dialog).getByLabelText('Email'), '   ');
    expect(send).toHaveProperty('disabled', true);
    await app.user.type(within(dialog).getByLabelText('Email'), 'ada@example.com');
    expect(send).toHaveProperty('disabled', false);
  });

  it("sends the trimmed e-mail, then shows 'Check Your Email'", async () => {
    const { app, dialog } = await openDialog({ 'POST /api/password-reset/request': SENT });
    await app.user.type(within(dialog).getByLabelText('Email'), '  ada@example.com ');
    await app.user.click(within(dialog).getByRole('button', { name: 'Send Reset Link' }));
    expect(await screen.findByRole('heading', { name: 'Check Your Email' })).toBeTruthy();
    expect(screen.getByText('ada@example.com')).toBeTruthy();
    expect(app.api.calls('POST /api/password-reset/request')[0]?.body).toEqual({ email: 'ada@example.com' });

    await app.user.click(screen.getByRole('button', { name: 'Back to Sign In' }));
    expect(app.location()).toBe('/login');
  });

  it('checks the address before sending', async () => {
    const { app, dialog } = await openDialog();
    await app.user.type(within(dialog).getByLabelText('Email'), 'not-an-address');
    await app.user.click(within(dialog).getByRole('button', { name: 'Send Reset Link' }));
    expect(await within(dialog).findByText('Invalid email address')).toBeTruthy();
    expect(app.api.calls('POST /api/password-reset/request')).toHaveLength(0);
  });

  it.each([
    [
      'the server message',
      { status: 429, body: apiError('Too many requests', 'rate_limited') },
      'Too many requests',
    ],
    ['the fallback', { status: 500, body: undefined }, 'Failed to send reset email'],
  ])('shows %s when the request fails', async (_case, answer, message) => {
    const { app, dialog } = await openDialog({ 'POST /api/password-reset/request': answer });
    await app.user.type(within(dialog).getByLabelText('Email'), 'ada@example.com');
    await app.user.click(within(dialog).getByRole('button', { name: 'Send Reset Link' }));
    expect(await screen.findByText(message)).toBeTruthy();
    expect(screen.queryByText('Check Your Email')).toBeNull();
  });

  it('shows the network message when the server cannot be reached', async () => {
    const { app, dialog } = await openDialog({
      'POST /api/password-reset/request': () => Promise.reject(new TypeError('Failed to fetch')),
    });
    await app.user.type(within(dialog).getByLabelText('Email'), 'ada@example.com');
    await app.user.click(within(dialog).getByRole('button', { name: 'Send Reset Link' }));
    expect(await screen.findByText('Failed to send reset email. Please try again.')).toBeTruthy();
  });
});
