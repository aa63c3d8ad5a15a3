import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import { LANDING_FAQ } from './landing-content.ts';

describe('landing page (platform-area: landing)', () => {
  it('has the hero with the marketing claims', async () => {
    renderApp({ path: '/' });
    expect(
      await screen.findByRole('heading', {
        level: 1,
        name: 'Deploy WordPress, n8n and databases in under 30 seconds',
      }),
    ).toBeTruthy();
    expect(screen.getByText('Trusted by 10,000+ developers')).toBeTruthy();
    expect(screen.getByText(/free 1-hour trial — no credit card required/)).toBeTruthy();
  });

  it('has the feature grid and the free-trial card', async () => {
    renderApp({ path: '/home' });
    const features = await screen.findByRole('region', { name: 'Everything you need to ship' });
    expect(within(features).getAllByRole('heading', { level: 3 })).toHaveLength(6);
    const trial = screen.getByRole('region', { name: 'Try Berth free for 1 hour' });
    expect(within(trial).getByText(/60-minute trial/)).toBeTruthy();
  });

  it('asks seven questions', async () => {
    const app = renderApp({ path: '/' });
    const faq = await screen.findByRole('region', { name: 'Frequently asked questions' });
    const questions = within(faq).getAllByRole('button');
    expect(questions.map((button) => button.textContent)).toEqual(LANDING_FAQ.map((item) => item.question));
    const first = within(faq).getByRole('button', { name: 'How does the free trial work?' });
    await app.user.click(first);
    expect(first.getAttribute('aria-expanded')).toBe('true');
    expect(within(faq).getByRole('region', { name: 'How does the free trial work?' }).textContent).toContain(
      'free 1-hour trial (60 minutes)',
    );
  });

  it('Start Free Trial goes to /register', async () => {
    const app = renderApp({ path: '/' });
    const [first] = await screen.findAllByRole('link', { name: 'Start Free Trial' });
    expect(first).toBeTruthy();
    if (first) await app.user.click(first);
    expect(await screen.findByRole('heading', { name: 'Create your account' })).toBeTruthy();
    expect(app.location()).toBe('/register');
  });

  it('has the public bar and footer links (customer-area §2.3)', async () => {
    renderApp({ path: '/' });
    const bar = await screen.findByRole('navigation', { name: 'Main' });
    expect(
      within(bar)
        .getAllByRole('link')
        .map((link) => link.getAttribute('href')),
    ).toEqual(['/', '/pricing', '/help']);
    expect(screen.getByRole('link', { name: 'Sign In' }).getAttribute('href')).toBe('/login');
    expect(screen.getByRole('link', { name: 'Get Started' }).getAttribute('href')).toBe('/register');
    const resources = screen.getByRole('navigation', { name: 'Resources' });
    expect(
      within(resources)
        .getAllByRole('link')
        .map((link) => link.getAttribute('href')),
    ).toEqual(['/pricing', '/help', '/terms', '/privacy-policy', '/cookies', '/gdpr']);
    const affiliate = screen.getByRole('navigation', { name: 'Affiliate Program' });
    expect(
      within(affiliate)
        .getAllByRole('link')
        .map((link) => link.getAttribute('href')),
    ).toEqual(['/affiliate/terms', '/affiliate/privacy-policy']);
  });
});
