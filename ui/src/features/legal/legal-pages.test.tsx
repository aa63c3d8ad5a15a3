import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { signedInApi } from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';

const page = (path: string, token: string | null = null) =>
  renderApp({ path, token, ...(token ? { api: signedInApi() } : {}) });

const text = () => screen.getByRole('main').textContent ?? '';

describe('legal pages (platform-area: legal pages)', () => {
  it.each([
    [
      '/terms',
      'Terms of Service',
      ['60 minutes', '1 active instance', '150 requests per minute', 'suspended'],
    ],
    ['/privacy-policy', 'Privacy Policy', ['salted hash', 'Cloudflare Turnstile', 'under 13', '1 hour']],
    ['/cookies', 'Cookie Policy', ['no advertising cookies', 'token', 'theme', 'referral_code']],
    ['/gdpr', 'GDPR', ['Rectification', 'Portability', 'one month', '72 hours']],
    [
      '/affiliate/privacy-policy',
      'Affiliate Privacy Policy',
      ['up to 7 years', 'up to 24 months', '18 years'],
    ],
    ['/affiliate/privacy', 'Affiliate Privacy Policy', ['up to 24 months']],
  ])('%s: %s with its specific text, a link home and the theme toggle', async (path, title, phrases) => {
    page(path);
    expect(await screen.findByRole('heading', { level: 1, name: title })).toBeTruthy();
    for (const phrase of phrases) expect(text()).toContain(phrase);
    expect(screen.getByRole('link', { name: 'Back to Home' }).getAttribute('href')).toBe('/');
    expect(screen.getAllByRole('button', { name: 'Switch to light mode' }).length).toBeGreaterThan(0);
  });

  it('the affiliate terms state the programme rules', async () => {
    page('/affiliate/terms');
    expect(await screen.findByRole('heading', { level: 1, name: 'Affiliate Program Terms' })).toBeTruthy();
    for (const rule of [
      '20 % of the first paid subscription',
      'first monthly payment or their first annual payment',
      'no recurring commission',
      'net revenue',
      'stored in their browser for 30 days',
      'last-click',
      'held for 30 days',
      'paid monthly, typically within 30 days after the end of the month',
      'PayPal, bank transfer or cryptocurrency',
      'more than 12 months',
      'at least 18 years old',
    ])
      expect(text()).toContain(rule);
  });

  it('is open to signed-in users too, and links home from there', async () => {
    page('/terms', 'stored');
    expect(await screen.findByRole('heading', { level: 1, name: 'Terms of Service' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Back to Home' }).getAttribute('href')).toBe('/');
    // /help is not a signed-in screen: the contact hint does not link to it.
    expect(screen.queryByRole('link', { name: 'Help Center' })).toBeNull();
  });
});
