import type { Schemas, User } from '@berth/openapi';
import { act, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { FakeRoutes } from '../../../test/fake-api.ts';
import { makeUser, proSubscription, signedInApi } from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';

const KEY = 'berth_sk_4f1c0a9e2b7d43c8a1e5f60b9d2c7e31Q3xZabcdefghijklmn';

function keyInfo(overrides: Partial<Schemas['ApiKeyInfo']> = {}): Schemas['ApiKeyInfo'] {
  return {
    id: '3f0c1f5e-8a1b-4c1e-9a3e-2d4b5c6d7e8f',
    label: '',
    notes: '',
    prefix: 'berth_sk_',
    last4: KEY.slice(-4),
    masked: `berth_sk_…${KEY.slice(-4)}`,
    createdAt: '2026-11-20T10:00:00.000Z',
    lastUsedAt: null,
    ...overrides,
  };
}

function renderPage(user: User, api: FakeRoutes = {}) {
  return renderApp({ path: '/api-access', token: 'stored', api: { ...signedInApi(user), ...api } });
}

const pro = () => makeUser({ subscription: proSubscription() });
const fresh = (apiKey = KEY) => ({
  body: { apiKey, key: keyInfo(), message: 'API key generated. Copy it now: it is not shown again.' },
});

describe('API Access, /api-access (platform-area)', () => {
  it('shows non-Pro users the upgrade prompt linking to /pricing, and asks for no key', async () => {
    const app = renderPage(makeUser());
    expect(
      await screen.findByText('API access requires a Pro plan subscription.', {}, { timeout: 5000 }),
    ).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Upgrade to Pro' }).getAttribute('href')).toBe('/pricing');
    expect(screen.queryByRole('button', { name: 'Generate API Key' })).toBeNull();
    expect(app.api.calls('POST /api/keys/generate')).toHaveLength(0);
  });

  it('is in the top bar and the dashboard’s Quick Actions', async () => {
    renderApp({ path: '/dashboard', token: 'stored', api: signedInApi(pro()) });
    const nav = await screen.findByRole('navigation', { name: 'Main' }, { timeout: 5000 });
    expect(within(nav).getByRole('link', { name: 'API Access' }).getAttribute('href')).toBe('/api-access');
    const quick = await screen.findByRole('navigation', { name: 'Quick actions' }, { timeout: 5000 });
    expect(
      within(quick)
        .getByRole('link', { name: /API Access/ })
        .getAttribute('href'),
    ).toBe('/api-access');
  });

  it('generates a key, shows it, hides and shows it, and copies it with 2 s of feedback', async () => {
    const app = renderPage(pro(), {
      'GET /api/keys': { body: { keys: [] } },
      'POST /api/keys/generate': fresh(),
    });
    await app.user.click(await screen.findByRole('button', { name: 'Generate API Key' }, { timeout: 5000 }));
    const field = (await screen.findByLabelText('API key')) as HTMLInputElement;
    expect(field.value).toBe(KEY);
    expect(field.type).toBe('text');
    await app.user.click(screen.getByRole('button', { name: 'Hide API key' }));
    expect(field.type).toBe('password');
    await app.user.click(screen.getByRole('button', { name: 'Show API key' }));
    expect(field.type).toBe('text');

    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      await app.user.click(screen.getByRole('button', { name: 'Copy' }));
      expect(writeText).toHaveBeenCalledWith(KEY);
      expect(screen.getByRole('button', { name: 'Copied!' })).toBeTruthy();
      await act(() => vi.advanceTimersByTimeAsync(1900));
      expect(screen.getByRole('button', { name: 'Copied!' })).toBeTruthy();
      await act(() => vi.advanceTimersByTimeAsync(200));
      expect(screen.getByRole('button', { name: 'Copy' })).toBeTruthy();
    } finally {
      vi.useRealTimers();
    }
  });

  it('says when there is no key to copy, and when the clipboard refuses', async () => {
    const app = renderPage(pro(), {
      'GET /api/keys': { body: { keys: [keyInfo()] } },
      'POST /api/keys/regenerate': fresh(),
    });
    await app.user.click(await screen.findByRole('button', { name: 'Copy' }, { timeout: 5000 }));
    expect(await screen.findByText('No API key to copy')).toBeTruthy();
    // Only the masked key is known after a reload.
    expect((screen.getByLabelText('API key') as HTMLInputElement).value).toBe(`berth_sk_…${KEY.slice(-4)}`);
    const writeText = vi.fn(async () => {
      throw new Error('denied');
    });
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    await app.user.click(screen.getByRole('button', { name: 'Regenerate' }));
    await app.user.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Regenerate' }),
    );
    await screen.findByDisplayValue(KEY);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await app.user.click(screen.getByRole('button', { name: 'Copy' }));
    expect(await screen.findByText('Failed to copy API key to clipboard')).toBeTruthy();
  });

  it('regenerates only after confirmation, and shows the new key', async () => {
    const app = renderPage(pro(), {
      'GET /api/keys': { body: { keys: [keyInfo()] } },
      'POST /api/keys/regenerate': fresh(`${KEY}NEW`),
    });
    await app.user.click(await screen.findByRole('button', { name: 'Regenerate' }, { timeout: 5000 }));
    const dialog = await screen.findByRole('dialog', { name: 'Regenerate API key?' });
    await app.user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(app.api.calls('POST /api/keys/regenerate')).toHaveLength(0);
    await app.user.click(screen.getByRole('button', { name: 'Regenerate' }));
    await app.user.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Regenerate' }),
    );
    expect(app.api.calls('POST /api/keys/regenerate')).toHaveLength(1);
    expect(((await screen.findByDisplayValue(`${KEY}NEW`)) as HTMLInputElement).type).toBe('text');
  });

  it('says "Failed to generate API key" and makes up no key when generation fails', async () => {
    const app = renderPage(pro(), {
      'GET /api/keys': { body: { keys: [] } },
      'POST /api/keys/generate': { status: 500, body: { error: 'internal_error', message: 'x' } },
    });
    await app.user.click(await screen.findByRole('button', { name: 'Generate API Key' }, { timeout: 5000 }));
    expect(await screen.findByText('Failed to generate API key')).toBeTruthy();
    expect(screen.queryByLabelText('API key')).toBeNull();
  });

  it('saves label and notes, with the saved message for 1.8 s', async () => {
    const app = renderPage(pro(), {
      'GET /api/keys': { body: { keys: [keyInfo()] } },
      'PUT /api/keys/3f0c1f5e-8a1b-4c1e-9a3e-2d4b5c6d7e8f': (request) => ({
        body: {
          key: keyInfo(request.body as { label: string; notes: string }),
          message: 'API key details saved',
        },
      }),
    });
    await app.user.type(await screen.findByLabelText('Key label', {}, { timeout: 5000 }), 'CI deploys');
    await app.user.type(screen.getByLabelText('Notes'), 'nightly');
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      await app.user.click(screen.getByRole('button', { name: 'Save' }));
      expect(await screen.findByText('Key details saved')).toBeTruthy();
      expect(app.api.calls('PUT /api/keys/3f0c1f5e-8a1b-4c1e-9a3e-2d4b5c6d7e8f')[0]?.body).toEqual({
        label: 'CI deploys',
        notes: 'nightly',
      });
      await act(() => vi.advanceTimersByTimeAsync(1700));
      expect(screen.queryByText('Key details saved')).toBeTruthy();
      await act(() => vi.advanceTimersByTimeAsync(200));
      expect(screen.queryByText('Key details saved')).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });
});

const infoOf = (apiKey: string) =>
  keyInfo({ last4: apiKey.slice(-4), masked: `berth_sk_…${apiKey.slice(-4)}` });
const OTHER_KEY = 'berth_sk_9a8b7c6d5e4f30211f0e9d8c7b6a5948abcdefghijklmnWXyz';

describe('deleting the API key', () => {
  it('deletes only after confirmation; the page then offers a new key', async () => {
    const app = renderPage(pro(), {
      'GET /api/keys': { body: { keys: [keyInfo()] } },
      [`DELETE /api/keys/${keyInfo().id}`]: { body: { message: 'API key deleted' } },
    });
    await app.user.click(await screen.findByRole('button', { name: 'Delete' }, { timeout: 5000 }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete API key?' });
    expect(dialog.textContent).toContain('The key stops working at once');
    await app.user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(app.api.calls(`DELETE /api/keys/${keyInfo().id}`)).toHaveLength(0);

    await app.user.click(screen.getByRole('button', { name: 'Delete' }));
    await app.user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('API key deleted', { selector: '[role="alert"] *' })).toBeTruthy();
    expect(app.api.calls(`DELETE /api/keys/${keyInfo().id}`)).toHaveLength(1);
    expect(await screen.findByRole('button', { name: 'Generate API Key' })).toBeTruthy();
    expect(screen.queryByLabelText('API key')).toBeNull();
  });
});

describe('the API key in the desktop app: kept in the OS keychain', () => {
  function renderDesktop(api: FakeRoutes, kept?: string) {
    const user = pro();
    const app = renderApp({
      path: '/api-access',
      token: 'stored',
      host: { desktop: true },
      api: { ...signedInApi(user), ...api },
    });
    if (kept !== undefined) app.desktop.secrets.set(`apiKey:${user.id}`, kept);
    return { ...app, keychain: () => app.desktop.secrets.get(`apiKey:${user.id}`) };
  }

  it('keeps a generated key in the keychain at once, and says so', async () => {
    const app = renderDesktop({
      'GET /api/keys': { body: { keys: [] } },
      'POST /api/keys/generate': fresh(),
    });
    await app.user.click(await screen.findByRole('button', { name: 'Generate API Key' }, { timeout: 5000 }));
    expect(((await screen.findByLabelText('API key')) as HTMLInputElement).value).toBe(KEY);
    await waitFor(() => expect(app.keychain()).toBe(KEY));
    expect(screen.getByText(/Kept in this computer’s keychain/)).toBeTruthy();
  });

  it('shows the kept key later from the keychain: hidden, revealed on demand, copied whole', async () => {
    const app = renderDesktop({ 'GET /api/keys': { body: { keys: [keyInfo()] } } }, KEY);
    const field = (await screen.findByDisplayValue(KEY, {}, { timeout: 5000 })) as HTMLInputElement;
    expect(field.type).toBe('password');
    await app.user.click(screen.getByRole('button', { name: 'Show API key' }));
    expect(field.type).toBe('text');
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    await app.user.click(screen.getByRole('button', { name: 'Copy' }));
    expect(writeText).toHaveBeenCalledWith(KEY);
  });

  it('does not show a kept key the server no longer lists (regenerated elsewhere)', async () => {
    renderDesktop({ 'GET /api/keys': { body: { keys: [infoOf(OTHER_KEY)] } } }, KEY);
    const field = (await screen.findByLabelText('API key', {}, { timeout: 5000 })) as HTMLInputElement;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(field.value).toBe(`berth_sk_…${OTHER_KEY.slice(-4)}`);
    expect(screen.queryByRole('button', { name: 'Show API key' })).toBeNull();
  });

  it('replaces the kept key when regenerated, and removes it when the key is deleted', async () => {
    const app = renderDesktop(
      {
        'GET /api/keys': { body: { keys: [keyInfo()] } },
        'POST /api/keys/regenerate': {
          body: { apiKey: OTHER_KEY, key: infoOf(OTHER_KEY), message: 'API key regenerated' },
        },
        [`DELETE /api/keys/${keyInfo().id}`]: { body: { message: 'API key deleted' } },
      },
      KEY,
    );
    await screen.findByDisplayValue(KEY, {}, { timeout: 5000 });
    await app.user.click(screen.getByRole('button', { name: 'Regenerate' }));
    await app.user.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Regenerate' }),
    );
    expect(((await screen.findByDisplayValue(OTHER_KEY)) as HTMLInputElement).type).toBe('text');
    await waitFor(() => expect(app.keychain()).toBe(OTHER_KEY));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

    await app.user.click(screen.getByRole('button', { name: 'Delete' }));
    await app.user.click(
      within(await screen.findByRole('dialog', { name: 'Delete API key?' })).getByRole('button', {
        name: 'Delete',
      }),
    );
    await screen.findByRole('button', { name: 'Generate API Key' });
    await waitFor(() => expect(app.keychain()).toBeUndefined());
  }, 15_000);
});
