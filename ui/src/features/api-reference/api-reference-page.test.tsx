import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';

describe('full API reference, /api-reference (platform-area)', () => {
  it('links to /api-access and /instances/new, and renders the viewer in the page’s theme', async () => {
    renderApp({ path: '/api-reference' });
    expect(
      await screen.findByRole('heading', { level: 1, name: 'API Reference' }, { timeout: 5000 }),
    ).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Get an API key' }).getAttribute('href')).toBe('/api-access');
    expect(screen.getByRole('link', { name: 'Deploy from the dashboard' }).getAttribute('href')).toBe(
      '/instances/new',
    );
    const viewer = await screen.findByTestId('api-reference-viewer');
    expect(viewer.dataset.theme).toMatch(/^(light|dark)$/);
    expect(viewer.dataset.serverUrl).toMatch(/^http/);
  });
});
