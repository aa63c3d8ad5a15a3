import type { User } from '@berth/openapi';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { FakeRoutes } from '../../../test/fake-api.ts';
import { apiError, authResult, makeUser, proSubscription, signedInApi } from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';

function renderProfile(user: User = makeUser(), api: FakeRoutes = {}) {
  return renderApp({ path: '/profile', token: 'stored', api: { ...signedInApi(user), ...api } });
}

const section = (name: string) => screen.findByRole('region', { name });

const png = (bytes = 64, name = 'me.png', type = 'image/png') =>
  new File([new Uint8Array(bytes)], name, { type });

describe('profile page', () => {
  it('has the four sections and the account information', async () => {
    renderProfile(
      makeUser({
        email: 'ada@example.com',
        createdAt: '2026-01-15T10:00:00.000Z',
        subscription: proSubscription(),
      }),
    );
    expect(await screen.findByRole('heading', { level: 1, name: 'Profile Settings' })).toBeTruthy();
    for (const name of ['Profile Picture', 'Personal Information', 'Change Password'])
      expect(await section(name)).toBeTruthy();
    const info = await section('Account Information');
    const value = (label: string) => within(info).getByText(label).nextSibling?.textContent;
    expect(value('Email')).toBe('ada@example.com');
    expect(value('Account created')).toMatch(/2026/);
    expect(value('Subscription plan')).toBe('Pro');
    expect(value('Instance limit')).toBe('Unlimited');
    expect(
      within(await section('Profile Picture')).getByText('PNG, JPG, GIF or WEBP up to 2 MB'),
    ).toBeTruthy();
  });

  it('is in the top bar', async () => {
    renderProfile();
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Profile' }).getAttribute('href')).toBe('/profile');
  });
});

describe('personal information', () => {
  it.each([
    ['First Name', '', 'First name is required'],
    ['Last Name', '', 'Last name is required'],
    ['Username', '', 'Username is required'],
    ['Username', 'ab', 'Username must be at least 3 characters'],
  ])('%s %j shows %j and sends nothing', async (label, value, message) => {
    const app = renderProfile();
    const form = await section('Personal Information');
    await app.user.clear(within(form).getByLabelText(label));
    if (value) await app.user.type(within(form).getByLabelText(label), value);
    await app.user.click(within(form).getByRole('button', { name: 'Save Changes' }));
    expect(await within(form).findByText(message)).toBeTruthy();
    expect(app.api.calls('PUT /api/auth/profile')).toHaveLength(0);
  });

  it("saves, toasts 'Profile updated successfully!' and updates the top bar", async () => {
    const updated = makeUser({ firstName: 'Augusta', lastName: 'King' });
    const app = renderProfile(makeUser(), { 'PUT /api/auth/profile': { body: { user: updated } } });
    const form = await section('Personal Information');
    await app.user.clear(within(form).getByLabelText('First Name'));
    await app.user.type(within(form).getByLabelText('First Name'), ' Augusta ');
    await app.user.clear(within(form).getByLabelText('Last Name'));
    await app.user.type(within(form).getByLabelText('Last Name'), 'King');
    await app.user.click(within(form).getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Profile updated successfully!')).toBeTruthy();
    expect(app.api.calls('PUT /api/auth/profile')[0]?.body).toEqual({
      firstName: 'Augusta',
      lastName: 'King',
      username: 'ada',
    });
    expect(await screen.findByRole('button', { name: 'Account menu, AK' })).toBeTruthy();
  });

  it("shows the server's message, and marks a taken username", async () => {
    const app = renderProfile(makeUser(), {
      'PUT /api/auth/profile': {
        status: 409,
        body: apiError('Username already taken', 'conflict', { field: 'username' }),
      },
    });
    const form = await section('Personal Information');
    await app.user.click(within(form).getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByRole('alert')).toHaveProperty('textContent', 'Username already taken');
    expect(within(form).getByText('Username already taken')).toBeTruthy();
  });

  it("falls back to 'Profile update failed'", async () => {
    const app = renderProfile(makeUser(), { 'PUT /api/auth/profile': { status: 500, body: undefined } });
    const form = await section('Personal Information');
    await app.user.click(within(form).getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Profile update failed')).toBeTruthy();
  });
});

describe('change password', () => {
  async function change(
    app: ReturnType<typeof renderProfile>,
    current: string,
    next: string,
    confirm: string,
  ) {
    const form = await section('Change Password');
    if (current) await app.user.type(within(form).getByLabelText('Current Password'), current);
    if (next) await app.user.type(within(form).getByLabelText('New Password'), next);
    if (confirm) await app.user.type(within(form).getByLabelText('Confirm New Password'), confirm);
    await app.user.click(within(form).getByRole('button', { name: 'Change Password' }));
    return form;
  }

  it.each([
    [
      '',
      '',
      '',
      ['Current password is required', 'New password is required', 'Please confirm your new password'],
    ],
    ['old-secret', 'lowercase1', 'lowercase1', ['Password must meet all requirements below']],
    ['old-secret', 'New#secret1', 'other-secret', ['Passwords do not match']],
  ])('%j / %j / %j shows %j', async (current, next, confirm, messages) => {
    const app = renderProfile();
    const form = await change(app, current, next, confirm);
    for (const message of messages) expect(await within(form).findByText(message)).toBeTruthy();
    expect(app.api.calls('PUT /api/auth/change-password')).toHaveLength(0);
  });

  it("changes the password, keeps the session with the answer's new tokens, toasts and clears the form", async () => {
    const app = renderProfile(makeUser(), {
      'PUT /api/auth/change-password': {
        body: { ...authResult(makeUser(), 'after-change'), user: undefined, message: 'Password changed' },
      },
    });
    const form = await change(app, 'old-secret', 'New#secret1', 'New#secret1');
    expect(await screen.findByText('Password changed successfully!')).toBeTruthy();
    // Every earlier token died with the old password: the store holds the new pair.
    expect(app.store).toEqual({ token: 'after-change', refreshToken: 'refresh-of-after-change' });
    expect(app.api.calls('PUT /api/auth/change-password')[0]?.body).toEqual({
      currentPassword: 'old-secret',
      newPassword: 'New#secret1',
    });
    await waitFor(() =>
      expect(within(form).getByLabelText('Current Password').getAttribute('value')).toBe(''),
    );
  });

  it.each([
    [
      'the server message',
      { status: 400, body: apiError('Current password is incorrect') },
      'Current password is incorrect',
    ],
    ['the fallback', { status: 500, body: undefined }, 'Password change failed'],
  ])('shows %s when the change fails', async (_case, answer, message) => {
    const app = renderProfile(makeUser(), { 'PUT /api/auth/change-password': answer });
    await change(app, 'old-secret', 'New#secret1', 'New#secret1');
    expect(await screen.findByText(message)).toBeTruthy();
  });
});

describe('profile picture', () => {
  const upload = async (app: ReturnType<typeof renderProfile>, file: File) => {
    await screen.findByRole('button', { name: 'Upload Picture' });
    await app.user.upload(screen.getByTestId('avatar-input'), file);
  };

  it.each([
    [
      'a text file',
      new File(['hello'], 'notes.txt', { type: 'text/plain' }),
      'Avatar must be a PNG, JPG, GIF or WEBP image',
    ],
    [
      'an SVG',
      new File(['<svg/>'], 'logo.svg', { type: 'image/svg+xml' }),
      'Avatar must be a PNG, JPG, GIF or WEBP image',
    ],
    ['a 3 MB image', png(3 * 1024 * 1024), 'Avatar must be 2 MB or smaller'],
  ])('rejects %s before sending', async (_case, file, message) => {
    const app = renderApp({ path: '/profile', token: 'stored', api: signedInApi() });
    await screen.findByRole('button', { name: 'Upload Picture' });
    // A user can pick any file ("All files" in the picker), whatever the input accepts.
    await userEvent.setup({ applyAccept: false }).upload(screen.getByTestId('avatar-input'), file);
    expect(await screen.findByText(message)).toBeTruthy();
    expect(app.api.calls('POST /api/auth/avatar')).toHaveLength(0);
  });

  it("uploads the file as the multipart field 'avatar' and toasts 'Profile picture updated'", async () => {
    const withAvatar = makeUser({ avatarUrl: '/api/avatars/0123456789abcdef0123456789abcdef.png' });
    const app = renderProfile(makeUser(), { 'POST /api/auth/avatar': { body: { user: withAvatar } } });
    await upload(app, png(2 * 1024 * 1024));
    expect(await screen.findByText('Profile picture updated')).toBeTruthy();
    const sent = app.api.calls('POST /api/auth/avatar')[0]?.body;
    expect(sent).toBeInstanceOf(FormData);
    const file = (sent as FormData).get('avatar');
    expect(file).toBeInstanceOf(File);
    expect((file as File).name).toBe('me.png');
    expect(await screen.findByRole('button', { name: 'Remove' })).toBeTruthy();
  });

  it("shows the server's reason, else 'Failed to upload avatar'", async () => {
    const app = renderProfile(makeUser(), {
      'POST /api/auth/avatar': {
        status: 400,
        body: apiError('Avatar must be a PNG, JPG, GIF or WEBP image'),
      },
    });
    await upload(app, png(10, 'renamed.png'));
    expect(await screen.findByText('Avatar must be a PNG, JPG, GIF or WEBP image')).toBeTruthy();

    app.api.on({ 'POST /api/auth/avatar': { status: 502, body: undefined } });
    await upload(app, png(10));
    expect(await screen.findByText('Failed to upload avatar')).toBeTruthy();
  });

  it("asks 'Remove your profile picture?' and removes it", async () => {
    const user = makeUser({ avatarUrl: '/api/avatars/0123456789abcdef0123456789abcdef.png' });
    const app = renderProfile(user, { 'DELETE /api/auth/avatar': { body: { user: makeUser() } } });
    await app.user.click(await screen.findByRole('button', { name: 'Remove' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove your profile picture?' });
    await app.user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(app.api.calls('DELETE /api/auth/avatar')).toHaveLength(0);

    await app.user.click(screen.getByRole('button', { name: 'Remove' }));
    const again = await screen.findByRole('dialog', { name: 'Remove your profile picture?' });
    await app.user.click(within(again).getByRole('button', { name: 'Remove' }));
    expect(await screen.findByText('Profile picture removed')).toBeTruthy();
    expect(app.api.calls('DELETE /api/auth/avatar')).toHaveLength(1);
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Remove' })).toBeNull());
  });

  it("falls back to 'Failed to remove avatar'", async () => {
    const user = makeUser({ avatarUrl: '/api/avatars/0123456789abcdef0123456789abcdef.png' });
    const app = renderProfile(user, { 'DELETE /api/auth/avatar': { status: 500, body: undefined } });
    await app.user.click(await screen.findByRole('button', { name: 'Remove' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove your profile picture?' });
    await app.user.click(within(dialog).getByRole('button', { name: 'Remove' }));
    expect(await screen.findByText('Failed to remove avatar')).toBeTruthy();
  });
});
