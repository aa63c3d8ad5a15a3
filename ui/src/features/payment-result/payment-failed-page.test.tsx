import { act, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { signedInApi } from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';
import { PAYMENT_CANCELLED_TITLE, PAYMENT_FAILED_TITLE } from './payment-failed-page.tsx';
import { failureReason, PAYMENT_FAILED_REDIRECT_SECONDS } from './payment-result.ts';

const renderFailed = (path: string) => renderApp({ path, token: 'stored', api: signedInApi() });
const h1 = (name: string) => screen.findByRole('heading', { level: 1, name });

afterEach(() => {
  vi.useRealTimers();
});

describe('payment failed page', () => {
  it.each([
    [
      '/payment-error?reason=incomplete',
      PAYMENT_FAILED_TITLE,
      'Payment was not completed. Please try again.',
    ],
    [
      '/payment-error?reason=server_error',
      PAYMENT_FAILED_TITLE,
      'A server error occurred while processing your payment.',
    ],
    ['/payment-error?reason=cancelled', PAYMENT_CANCELLED_TITLE, 'Payment was cancelled by user.'],
    ['/payment-error?reason=other', PAYMENT_FAILED_TITLE, 'An error occurred while processing your payment.'],
    ['/payment-error?reason=bogus', PAYMENT_FAILED_TITLE, 'An error occurred while processing your payment.'],
    ['/payment-error', PAYMENT_FAILED_TITLE, 'An error occurred while processing your payment.'],
    ['/payment-cancelled', PAYMENT_CANCELLED_TITLE, 'Payment was cancelled by user.'],
    ['/payment-cancelled?reason=cancelled', PAYMENT_CANCELLED_TITLE, 'Payment was cancelled by user.'],
    [
      '/payment-cancelled?reason=server_error',
      PAYMENT_FAILED_TITLE,
      'A server error occurred while processing your payment.',
    ],
  ])('%s shows %s: %s', async (path, title, text) => {
    const app = renderFailed(path);
    expect(await h1(title)).toBeTruthy();
    expect(screen.getByText(text)).toBeTruthy();
    expect(app.location()).toBe(path);
  });

  it('offers Try Again (/pricing) and Go to Dashboard (/dashboard)', async () => {
    renderFailed('/payment-error?reason=incomplete');
    await h1(PAYMENT_FAILED_TITLE);
    expect(screen.getByRole('link', { name: 'Try Again' }).getAttribute('href')).toBe('/pricing');
    expect(screen.getByRole('link', { name: 'Go to Dashboard' }).getAttribute('href')).toBe('/dashboard');
  });

  it('Try Again leads to /pricing, which signed-in users see as /billing', async () => {
    const app = renderFailed('/payment-error?reason=incomplete');
    await app.user.click(await screen.findByRole('link', { name: 'Try Again' }));
    await waitFor(() => expect(app.location()).toBe('/billing'));
    expect(await h1('Subscription and Billing')).toBeTruthy();
  });

  it('Go to Dashboard leads to /dashboard', async () => {
    const app = renderFailed('/payment-cancelled');
    await app.user.click(await screen.findByRole('link', { name: 'Go to Dashboard' }));
    await waitFor(() => expect(app.location()).toBe('/dashboard'));
    expect(await h1('Dashboard')).toBeTruthy();
  });

  it('counts down 10 seconds, then goes to /pricing (/billing for users)', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const app = renderFailed('/payment-error?reason=server_error');
    await h1(PAYMENT_FAILED_TITLE);
    const timer = screen.getByRole('timer');
    expect(timer.textContent).toBe('Redirecting to pricing in 10 seconds...');
    // The countdown starts with the page's effects, which run after the signed-in screen's commit.
    await waitFor(() => expect(timer.textContent).toBe('Redirecting to pricing in 9 seconds...'));
    await act(async () => {
      vi.advanceTimersByTime((PAYMENT_FAILED_REDIRECT_SECONDS - 2) * 1_000);
    });
    expect(screen.getByRole('timer').textContent).toBe('Redirecting to pricing in 1 second...');
    expect(app.location()).toBe('/payment-error?reason=server_error');
    await act(async () => {
      vi.advanceTimersByTime(1_000);
    });
    await waitFor(() => expect(app.location()).toBe('/billing'));
  });

  it.each(['/payment-error?reason=incomplete', '/payment-cancelled'])(
    'sends an anonymous visitor of %s to /login',
    async (path) => {
      const app = renderApp({ path });
      expect(await h1('Welcome back')).toBeTruthy();
      expect(app.location()).toBe('/login');
    },
  );
});

describe('failureReason', () => {
  it('keeps the listed reasons, maps the rest to other and uses the fallback when none is given', () => {
    expect(failureReason('incomplete')).toBe('incomplete');
    expect(failureReason('server_error', 'cancelled')).toBe('server_error');
    expect(failureReason('toString')).toBe('other');
    expect(failureReason(null)).toBe('other');
    expect(failureReason('', 'cancelled')).toBe('cancelled');
    expect(failureReason(null, 'cancelled')).toBe('cancelled');
  });
});
