import { act, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { signedInApi } from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';
import { PAYMENT_SUCCESS_REDIRECT_SECONDS } from './payment-result.ts';
import { NO_TRANSACTION_TEXT, PAYMENT_SUCCESS_TEXT, PAYMENT_SUCCESS_TITLE } from './payment-success-page.tsx';

const renderSuccess = (path: string) => renderApp({ path, token: 'stored', api: signedInApi() });
const h1 = (name: string) => screen.findByRole('heading', { level: 1, name });

afterEach(() => {
  vi.useRealTimers();
});

describe('payment success page', () => {
  it('shows the transaction id from the query', async () => {
    renderSuccess('/payment-success?tx=pi_3Nabc123');
    expect(await h1(PAYMENT_SUCCESS_TITLE)).toBeTruthy();
    expect(screen.getByText(PAYMENT_SUCCESS_TEXT)).toBeTruthy();
    const term = screen.getByText('Transaction ID');
    expect(term.tagName).toBe('DT');
    expect(term.nextElementSibling?.textContent).toContain('pi_3Nabc123');
    expect(screen.queryByText(NO_TRANSACTION_TEXT)).toBeNull();
    expect(screen.getByRole('button', { name: 'Copy transaction ID' })).toBeTruthy();
  });

  it('says so when no transaction id was given', async () => {
    renderSuccess('/payment-success');
    expect(await h1(PAYMENT_SUCCESS_TITLE)).toBeTruthy();
    expect(screen.getByText(NO_TRANSACTION_TEXT)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Copy transaction ID' })).toBeNull();
  });

  it('links to /dashboard and /instances', async () => {
    renderSuccess('/payment-success?tx=tx_1');
    await h1(PAYMENT_SUCCESS_TITLE);
    expect(screen.getByRole('link', { name: 'Go to Dashboard' }).getAttribute('href')).toBe('/dashboard');
    expect(screen.getByRole('link', { name: 'View Instances' }).getAttribute('href')).toBe('/instances');
  });

  it.each([
    ['Go to Dashboard', '/dashboard', 'Dashboard'],
    ['View Instances', '/instances', 'Instances'],
  ])('%s leads to %s', async (name, to, heading) => {
    const app = renderSuccess('/payment-success?tx=tx_1');
    await app.user.click(await screen.findByRole('link', { name }));
    await waitFor(() => expect(app.location()).toBe(to));
    expect(await h1(heading)).toBeTruthy();
  });

  it('counts down 5 seconds, then goes to /dashboard', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const app = renderSuccess('/payment-success?tx=tx_1');
    await h1(PAYMENT_SUCCESS_TITLE);
    const timer = screen.getByRole('timer');
    expect(timer.textContent).toBe('Redirecting to your dashboard in 5 seconds...');
    expect(timer.getAttribute('aria-live')).toBe('off');
    await act(async () => {
      vi.advanceTimersByTime((PAYMENT_SUCCESS_REDIRECT_SECONDS - 1) * 1_000);
    });
    expect(screen.getByRole('timer').textContent).toBe('Redirecting to your dashboard in 1 second...');
    expect(app.location()).toBe('/payment-success?tx=tx_1');
    await act(async () => {
      vi.advanceTimersByTime(1_000);
    });
    await waitFor(() => expect(app.location()).toBe('/dashboard'));
    expect(await h1('Dashboard')).toBeTruthy();
  });

  it('sends an anonymous visitor to /login', async () => {
    const app = renderApp({ path: '/payment-success?tx=tx_1' });
    expect(await h1('Welcome back')).toBeTruthy();
    expect(app.location()).toBe('/login');
  });
});
