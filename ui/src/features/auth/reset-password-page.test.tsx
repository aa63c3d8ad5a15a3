import { act, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FakeRoutes } from '../../../test/fake-api.ts';
import { apiError } from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';
import { RESET_SUCCESS_REDIRECT_MS } from './reset-password-page.tsx';

afterEach(() => {
  vi.useRealTimers();
});

const VERIFY = 'GET /api/password-reset/verify/good-token';
const VALID = { [VERIFY]: { body: { success: true, message: 'Reset link is valid' } } };
const DONE = {
  body: { success: true, message: 'Password has been reset successfully. You can now sign in.' },
};

function renderReset(api: FakeRoutes = VALID, path = '/reset-password?token=good-token') {
  return renderApp({ path, api });
}

async function choose(app: ReturnType<typeof renderReset>, password: string, confirm: string) {
  await app.user.type(await screen.findByLabelText('New Password'), password);
  await app.user.type(screen.getByLabelText('Confirm New Password'), confirm);
  await app.user.click(screen.getByRole('button', { name: 'Reset Password' }));
}

describe('reset password', () => {
  it('without a token: the invalid-link page, and no request', async () => {
    const app = renderReset({}, '/reset-password');
    expect(await screen.findByText('Invalid reset link. Please request a new password reset.')).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Reset link not valid' })).toBeTruthy();
    expect(app.api.requests.filter((request) => request.path.startsWith('/api/password-reset'))).toHaveLength(
      0,
    );
  });

  it('shows the verifying state, then the form', async () => {
    let answer: (value: { body: unknown }) => void = () => {};
    renderReset({ [VERIFY]: () => new Promise((resolve) => (answer = resolve)) });
    expect(await screen.findByText('Checking your reset link...')).toBeTruthy();
    answer({ body: { success: true, message: 'Reset link is valid' } });
    expect(await screen.findByRole('heading', { name: 'Choose a new password' })).toBeTruthy();
  });

  it.each([
    ['the server message', { status: 400, body: apiError('Reset link expired') }, 'Reset link expired'],
    ['the fallback', { status: 400, body: undefined }, 'Invalid or expired reset token'],
  ])('an invalid token shows %s', async (_case, answer, message) => {
    renderReset({ [VERIFY]: answer });
    expect(await screen.findByText(message)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Back to Sign In' }).getAttribute('href')).toBe('/login');
  });

  it("shows 'Failed to verify reset token' when the server cannot be reached", async () => {
    renderReset({ [VERIFY]: () => Promise.reject(new TypeError('Failed to fetch')) });
    expect(await screen.findByText('Failed to verify reset token')).toBeTruthy();
  });

  it.each([
    ['lowercase1', 'lowercase1', 'Password must meet all requirements below'],
    ['secret1', 'secret2', 'Passwords do not match'],
  ])('%j / %j shows %j and sends nothing', async (password, confirm, message) => {
    const app = renderReset();
    await choose(app, password, confirm);
    expect(await screen.findByText(message)).toBeTruthy();
    expect(app.api.calls('POST /api/password-reset/reset')).toHaveLength(0);
  });

  it('resets, shows the success screen and goes to /login after 3 s', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const app = renderReset({ ...VALID, 'POST /api/password-reset/reset': DONE });
    await choose(app, 'New#secret1', 'New#secret1');
    expect(await screen.findByRole('heading', { name: 'Password reset' })).toBeTruthy();
    expect(app.api.calls('POST /api/password-reset/reset')[0]?.body).toEqual({
      token: 'good-token',
      password: 'New#secret1',
    });
    await act(async () => {
      vi.advanceTimersByTime(RESET_SUCCESS_REDIRECT_MS - 500);
    });
    expect(app.location()).toBe('/reset-password?token=good-token');
    await act(async () => {
      vi.advanceTimersByTime(500);
    });
    await waitFor(() => expect(app.location()).toBe('/login'));
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeTruthy();
  });

  it.each([
    [
      'the server message',
      { status: 400, body: apiError('Invalid or expired reset token') },
      'Invalid or expired reset token',
    ],
    ['the fallback', { status: 500, body: undefined }, 'Failed to reset password'],
  ])('a failed reset shows %s', async (_case, answer, message) => {
    const app = renderReset({ ...VALID, 'POST /api/password-reset/reset': answer });
    await choose(app, 'New#secret1', 'New#secret1');
    expect(await screen.findByText(message)).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Password reset' })).toBeNull();
  });

  it("shows 'Failed to reset password. Please try again.' when the server cannot be reached", async () => {
    const app = renderReset({
      ...VALID,
      'POST /api/password-reset/reset': () => Promise.reject(new TypeError('Failed to fetch')),
    });
    await choose(app, 'New#secret1', 'New#secret1');
    expect(await screen.findByText('Failed to reset password. Please try again.')).toBeTruthy();
  });
});
