import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { makeUser, proSubscription, signedInApi } from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';

describe('short API documentation, /api/docs (platform-area)', () => {
  it('has the named sections and four endpoint cards', async () => {
    renderApp({ path: '/api/docs' });
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Berth API' }, { timeout: 5000 }),
    ).toBeTruthy();
    for (const section of [
      'Pro API access',
      'Authentication',
      'Base URL',
      'Endpoints',
      'Response Format',
      'Rate Limits',
    ])
      expect(screen.getByRole('heading', { level: 2, name: section })).toBeTruthy();
    const endpoints = screen.getByRole('region', { name: 'Endpoints' });
    expect(within(endpoints).getAllByRole('heading', { level: 3 })).toHaveLength(4);
    expect(screen.getByText(/\/api\/v1$/)).toBeTruthy();
    expect(screen.getByText(/150 requests per minute/)).toBeTruthy();
    // The cards come from the public OpenAPI document: the calls exist.
    expect(within(endpoints).getByText('List your instances')).toBeTruthy();
    expect(within(endpoints).getByText('Deploy an instance')).toBeTruthy();
  });

  it('tells visitors that access needs Pro, with an upgrade link, and links home', async () => {
    renderApp({ path: '/api/docs' });
    expect(await screen.findByText('API access requires a Pro plan subscription.')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Upgrade' }).getAttribute('href')).toBe('/pricing');
    expect(screen.getByRole('link', { name: 'Back to Home' }).getAttribute('href')).toBe('/');
    expect(screen.queryByRole('link', { name: 'Dashboard' })).toBeNull();
  });

  it('links Pro users to their key on /api-access, and signed-in users to /dashboard', async () => {
    renderApp({
      path: '/api/docs',
      token: 'stored',
      api: signedInApi(makeUser({ subscription: proSubscription() })),
    });
    const main = await screen.findByRole('main');
    expect(await within(main).findByRole('link', { name: 'Manage key' })).toBeTruthy();
    expect(within(main).getByRole('link', { name: 'Manage key' }).getAttribute('href')).toBe('/api-access');
    expect(within(main).getByRole('link', { name: 'Dashboard' }).getAttribute('href')).toBe('/dashboard');
  });
});
