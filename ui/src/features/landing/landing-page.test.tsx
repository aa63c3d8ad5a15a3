import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { publicConfig, publicOffer } from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';
import { HERO_TITLE, landingFaq } from './landing-content.ts';

describe('landing page (platform-area: landing)', () => {
  it('has the hero with the trial, and no made-up user numbers', async () => {
    renderApp({ path: '/' });
    expect(await screen.findByRole('heading', { level: 1, name: HERO_TITLE })).toBeTruthy();
    expect(screen.getByText(/free 1-hour trial — no credit card required/)).toBeTruthy();
    expect(document.body.textContent).not.toMatch(/10,000|trusted by|developers trust/i);
  });

  it('marks what this server cannot deploy yet as such, from the server’s offer', async () => {
    const app = renderApp({ path: '/' });
    const features = await screen.findByRole('region', { name: 'Everything you need to ship' });
    const cardOf = (title: string) => {
      const heading = within(features).getByRole('heading', { level: 3, name: title });
      const card = heading.parentElement;
      if (!card) throw new Error(`no card for ${title}`);
      return within(card);
    };
    await cardOf('n8n automation').findByText('Coming soon');
    expect(cardOf('WordPress sites').getByText('Available')).toBeTruthy();
    expect(
      cardOf('Managed databases').getByText('Available: MySQL and PostgreSQL · MongoDB: Coming soon'),
    ).toBeTruthy();
    expect(cardOf('API for automation').getByText('Coming soon')).toBeTruthy();
    const faq = screen.getByRole('region', { name: 'Frequently asked questions' });
    await app.user.click(within(faq).getByRole('button', { name: 'What can I deploy?' }));
    expect(within(faq).getByRole('region', { name: 'What can I deploy?' }).textContent).toBe(
      'On this server: MySQL databases, PostgreSQL databases and WordPress sites. Not available yet: MongoDB and n8n.',
    );
  });

  it('shows n8n, MongoDB and the API as available when the server offers them', async () => {
    const offer = publicOffer({
      available: ['mysql', 'postgresql', 'mongodb', 'wordpress', 'n8n'],
      publicApi: true,
    });
    renderApp({ path: '/', api: { 'GET /api/config': { body: publicConfig({ offer }) } } });
    const features = await screen.findByRole('region', { name: 'Everything you need to ship' });
    await within(features).findByText('Available: MySQL, PostgreSQL and MongoDB');
    expect(within(features).queryByText(/Coming soon/)).toBeNull();
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
    expect(questions.map((button) => button.textContent)).toEqual(
      landingFaq(undefined).map((item) => item.question),
    );
    const first = within(faq).getByRole('button', { name: 'How does the free trial work?' });
    expect(first.getAttribute('aria-expanded')).toBe('false');
    expect(within(faq).queryByRole('region', { name: 'How does the free trial work?' })).toBeNull();
    await app.user.click(first);
    expect(first.getAttribute('aria-expanded')).toBe('true');
    expect(within(faq).getByRole('region', { name: 'How does the free trial work?' }).textContent).toContain(
      'free 1-hour trial (60 minutes)',
    );
    // A second question opens beside the first; a second click closes the first again.
    await app.user.click(within(faq).getByRole('button', { name: 'What can I deploy?' }));
    await app.user.click(first);
    expect(first.getAttribute('aria-expanded')).toBe('false');
    expect(within(faq).queryByRole('region', { name: 'How does the free trial work?' })).toBeNull();
    expect(within(faq).getByRole('region', { name: 'What can I deploy?' })).toBeTruthy();
  });

  it('Start Free Trial goes to /register', async () => {
    const app = renderApp({ path: '/' });
    const [first] = await screen.findAllByRole('link', { name: 'Start Free Trial' });
    expect(first).toBeTruthy();
    if (first) await app.user.click(first);
    expect(await screen.findByRole('heading', { name: 'Create your account' })).toBeTruthy();
    expect(app.location()).toBe('/register');
  });

  it('has the public bar and footer links', async () => {
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
    ).toEqual([
      '/affiliate/register',
      '/affiliate/login',
      '/affiliate/dashboard',
      '/affiliate/terms',
      '/affiliate/privacy-policy',
    ]);
  });
});
