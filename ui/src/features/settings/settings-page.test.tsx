import { screen, waitFor, within } from '@testing-library/react';
import axe from 'axe-core';
import { describe, expect, it } from 'vitest';
import { signedInApi } from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';
import { normalizeServerUrl, SERVER_URL_MESSAGES, serverUrlError } from './server-url.ts';

const desktop = { desktop: true, serverUrl: 'http://localhost:8080' };

describe('serverUrlError / normalizeServerUrl (the rules of desktop/src/main/settings.ts)', () => {
  it.each([
    ['https://berth.example.com', undefined, 'https://berth.example.com'],
    ['  https://Berth.Example.com/  ', undefined, 'https://berth.example.com'],
    ['http://192.168.1.10:8080', undefined, 'http://192.168.1.10:8080'],
    ['https://example.com/berth/', undefined, 'https://example.com/berth'],
    ['', SERVER_URL_MESSAGES.required, null],
    ['   ', SERVER_URL_MESSAGES.required, null],
    ['berth.example.com', SERVER_URL_MESSAGES.invalid, null],
    ['localhost:8080', SERVER_URL_MESSAGES.invalid, null],
    ['ftp://example.com', SERVER_URL_MESSAGES.invalid, null],
    ['file:///etc/passwd', SERVER_URL_MESSAGES.invalid, null],
    ['javascript:alert(1)', SERVER_URL_MESSAGES.invalid, null],
    ['https://user:pw@example.com', SERVER_URL_MESSAGES.extras, null],
    ['https://example.com/?a=1', SERVER_URL_MESSAGES.extras, null],
    ['https://example.com/#x', SERVER_URL_MESSAGES.extras, null],
  ])('%j → %s', (input, error, normalized) => {
    expect(serverUrlError(input)).toBe(error);
    expect(normalizeServerUrl(input)).toBe(normalized);
  });
});

describe('Settings screen (desktop)', () => {
  it('shows the current server and saves a new one through the host, which reloads the app', async () => {
    const app = renderApp({ path: '/settings', host: desktop });
    expect(await screen.findByRole('heading', { level: 1, name: 'Settings' })).toBeTruthy();
    const field = await screen.findByRole('textbox', { name: 'Server URL' });
    expect((field as HTMLInputElement).value).toBe('http://localhost:8080');
    const save = screen.getByRole('button', { name: 'Save and Reload' });
    // Nothing to save until the address changes.
    expect(save).toHaveProperty('disabled', true);

    await app.user.clear(field);
    await app.user.type(field, 'https://Berth.Example.com/');
    await app.user.click(save);

    expect(await screen.findByText('Saved. Berth is reloading with https://berth.example.com…')).toBeTruthy();
    expect(app.desktop.savedServerUrls).toEqual(['https://berth.example.com']);
  });

  it('explains an invalid address and sends nothing', async () => {
    const app = renderApp({ path: '/settings', host: desktop });
    const field = await screen.findByRole('textbox', { name: 'Server URL' });
    await app.user.clear(field);
    await app.user.type(field, 'berth.example.com');
    await app.user.click(screen.getByRole('button', { name: 'Save and Reload' }));
    expect(await screen.findByText(SERVER_URL_MESSAGES.invalid)).toBeTruthy();
    expect(field.getAttribute('aria-invalid')).toBe('true');

    await app.user.clear(field);
    await app.user.type(field, 'https://admin:secret@berth.example.com');
    await app.user.click(screen.getByRole('button', { name: 'Save and Reload' }));
    expect(await screen.findByText(SERVER_URL_MESSAGES.extras)).toBeTruthy();
    expect(app.desktop.savedServerUrls).toEqual([]);
  });

  it('says so when the host refuses the address', async () => {
    const app = renderApp({
      path: '/settings',
      host: { ...desktop, rejectServerUrl: 'Server URL must be an absolute http(s) URL' },
    });
    const field = await screen.findByRole('textbox', { name: 'Server URL' });
    await app.user.clear(field);
    await app.user.type(field, 'https://berth.example.com');
    await app.user.click(screen.getByRole('button', { name: 'Save and Reload' }));
    expect(
      await screen.findByText('The server URL could not be saved. Check the address and try again.'),
    ).toBeTruthy();
  });

  it('is reachable from the account menu when signed in', async () => {
    const app = renderApp({ path: '/dashboard', token: 'stored', api: signedInApi(), host: desktop });
    await app.user.click(await screen.findByRole('button', { name: /^Account menu/ }));
    const menu = await screen.findByRole('menu', { name: 'Account' });
    await app.user.click(within(menu).getByRole('menuitem', { name: 'Settings' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Settings' })).toBeTruthy();
    expect(app.location()).toBe('/settings');
  });
});

describe('Settings screen accessibility (desktop)', () => {
  // The web build has no Settings screen, so the browser a11y suite cannot reach it: axe runs here on
  // the DOM (structure, names, roles; happy-dom has no layout, so no colour-contrast check).
  it('has no serious or critical axe violation, also while showing an error', async () => {
    const app = renderApp({ path: '/settings', host: desktop });
    const field = await screen.findByRole('textbox', { name: 'Server URL' });
    await app.user.clear(field);
    await app.user.click(screen.getByRole('button', { name: 'Save and Reload' }));
    expect(await screen.findByText(SERVER_URL_MESSAGES.required)).toBeTruthy();
    const results = await axe.run(document.body, { rules: { 'color-contrast': { enabled: false } } });
    const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
  });
});

describe('Settings before signing in (desktop)', () => {
  it('the sign-in page names the server and links to Settings', async () => {
    const app = renderApp({
      path: '/login',
      host: { desktop: true, serverUrl: 'https://berth.example.com' },
    });
    expect(await screen.findByText(/Server: https:\/\/berth\.example\.com/)).toBeTruthy();
    await app.user.click(screen.getByRole('link', { name: 'Change' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Settings' })).toBeTruthy();
    expect(app.location()).toBe('/settings');
  });

  it('the web sign-in page has no server line', async () => {
    renderApp({ path: '/login' });
    expect(await screen.findByRole('button', { name: 'Sign In' })).toBeTruthy();
    expect(screen.queryByText(/^Server:/)).toBeNull();
  });
});

describe('Settings screen (web)', () => {
  it('does not exist: Not Found, and no Settings in the account menu', async () => {
    const app = renderApp({ path: '/dashboard', token: 'stored', api: signedInApi() });
    await app.user.click(await screen.findByRole('button', { name: /^Account menu/ }));
    const menu = await screen.findByRole('menu', { name: 'Account' });
    expect(
      within(menu)
        .getAllByRole('menuitem')
        .map((item) => item.textContent),
    ).toEqual(['Logout']);
    app.unmount();

    renderApp({ path: '/settings' });
    await waitFor(() => expect(screen.queryByRole('heading', { level: 1, name: 'Settings' })).toBeNull());
    expect(await screen.findByRole('heading', { level: 1, name: /not found/i })).toBeTruthy();
  });
});
