import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { FakeRoutes } from '../../../test/fake-api.ts';
import { apiError, authResult, makeUser, signedInApi } from '../../../test/fixtures.ts';
import { fillRegistration, submitRegistration, VALID_REGISTRATION } from '../../../test/register-form.ts';
import { renderApp } from '../../../test/render-app.tsx';

function renderRegister(path = '/register', api: FakeRoutes = {}) {
  return renderApp({ path, api: { ...signedInApi(), ...api } });
}

const VALID = VALID_REGISTRATION;
const fill = fillRegistration;
const submit = submitRegistration;

describe('password strength meter', () => {
  it.each([
    ['abcdefgh', 'Weak'],
    ['abcdefgH', 'Fair'],
    ['abcdefH1', 'Good'],
    ['abcdeH1!', 'Strong'],
  ])('%s is %s', async (password, label) => {
    const { user } = renderRegister();
    await user.type(await screen.findByLabelText('Password'), password);
    expect(screen.getByText(label)).toBeTruthy();
    expect(screen.getByRole('progressbar', { name: 'Password strength' })).toBeTruthy();
  });

  it('ticks the checklist live', async () => {
    const { user } = renderRegister();
    const list = await screen.findByRole('list', { name: 'Password requirements' });
    expect(within(list).getAllByTitle('Not met')).toHaveLength(5);
    await user.type(screen.getByLabelText('Password'), 'aB1');
    expect(within(list).getAllByTitle('Met')).toHaveLength(3);
    await user.type(screen.getByLabelText('Password'), 'cdef!');
    expect(within(list).getAllByTitle('Met')).toHaveLength(5);
    expect(within(list).getByText('At least 8 characters')).toBeTruthy();
  });
});

describe('RegisterPage submit', () => {
  it('registers: sends the form, stores the token, toasts and goes to /dashboard', async () => {
    const app = renderRegister('/register', {
      'POST /api/auth/register': { status: 201, body: authResult(makeUser(), 'new-token') },
    });
    await fill(app.user, { ...VALID, accountType: 'company', companyName: 'Analytical Engines' });
    await submit(app.user);

    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeTruthy();
    expect(app.location()).toBe('/dashboard');
    expect(app.store.token).toBe('new-token');
    expect(await screen.findByText('Registration successful!')).toBeTruthy();
    expect(app.api.calls('POST /api/auth/register')[0]?.body).toEqual({
      accountType: 'company',
      firstName: 'Ada',
      lastName: 'Lovelace',
      companyName: 'Analytical Engines',
      username: 'ada_l',
      email: 'ada@example.com',
      password: 'Analytic1!',
    });
  });

  it('sends the ref of the URL and stores it upper-cased', async () => {
    const app = renderRegister('/register?ref=friend42', {
      'POST /api/auth/register': { status: 201, body: authResult() },
    });
    await fill(app.user, VALID);
    expect(localStorage.getItem('referral_code')).toBe('FRIEND42');
    await submit(app.user);
    await screen.findByRole('heading', { name: 'Dashboard' });
    expect(app.api.calls('POST /api/auth/register')[0]?.body).toMatchObject({ ref: 'friend42' });
  });

  it('sends the stored referral code when the URL has none', async () => {
    localStorage.setItem('referral_code', 'SAVED7');
    const app = renderRegister('/register', {
      'POST /api/auth/register': { status: 201, body: authResult() },
    });
    await fill(app.user, VALID);
    await submit(app.user);
    await screen.findByRole('heading', { name: 'Dashboard' });
    expect(app.api.calls('POST /api/auth/register')[0]?.body).toMatchObject({ ref: 'SAVED7' });
  });

  it('sends no ref without one', async () => {
    const app = renderRegister('/register', {
      'POST /api/auth/register': { status: 201, body: authResult() },
    });
    await fill(app.user, VALID);
    await submit(app.user);
    await screen.findByRole('heading', { name: 'Dashboard' });
    expect(app.api.calls('POST /api/auth/register')[0]?.body).not.toHaveProperty('ref');
  });

  it("shows the server's message and its field errors", async () => {
    const app = renderRegister('/register', {
      'POST /api/auth/register': {
        status: 400,
        body: apiError('Username is taken by the server rules', 'validation_error', {
          fieldErrors: { username: ['Username is taken by the server rules'], email: ['Email is blocked'] },
        }),
      },
    });
    await fill(app.user, VALID);
    await submit(app.user);

    const toast = await screen.findByRole('alert');
    expect(toast.textContent).toContain('Username is taken by the server rules');
    expect(screen.getByText('Email is blocked')).toBeTruthy();
    expect(screen.getByLabelText('Email').getAttribute('aria-invalid')).toBe('true');
    expect(app.location()).toBe('/register');
    expect(app.store.token).toBeNull();

    // Editing the field clears the server's message.
    await app.user.type(screen.getByLabelText('Email'), 'x');
    expect(screen.queryByText('Email is blocked')).toBeNull();
  });

  it('marks the field of a conflict', async () => {
    const app = renderRegister('/register', {
      'POST /api/auth/register': {
        status: 409,
        body: apiError('Email is already registered', 'conflict', { field: 'email' }),
      },
    });
    await fill(app.user, VALID);
    await submit(app.user);
    expect(await screen.findAllByText('Email is already registered')).toHaveLength(2);
  });

  it("falls back to 'Registration failed'", async () => {
    const app = renderRegister('/register', { 'POST /api/auth/register': { status: 500 } });
    await fill(app.user, VALID);
    await submit(app.user);
    expect(await screen.findByText('Registration failed')).toBeTruthy();
  });

  it('links to /login', async () => {
    const app = renderRegister();
    await app.user.click(await screen.findByRole('link', { name: 'Sign in' }));
    // The next page's code loads first; the router keeps this one on screen meanwhile.
    await waitFor(() => expect(app.location()).toBe('/login'));
  });
});
