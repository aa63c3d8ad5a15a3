import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { authResult, signedInApi } from '../../../test/fixtures.ts';
import { fillRegistration, submitRegistration, VALID_REGISTRATION } from '../../../test/register-form.ts';
import { renderApp } from '../../../test/render-app.tsx';
import type { RegisterValues } from './register-validation.ts';

const VALID = VALID_REGISTRATION;
const fill = fillRegistration;
const submit = submitRegistration;

function renderRegister() {
  return renderApp({
    path: '/register',
    api: { ...signedInApi(), 'POST /api/auth/register': { status: 201, body: authResult() } },
  });
}

describe('RegisterPage validation', () => {
  const long = (n: number) => 'x'.repeat(n);
  it.each<[string, Partial<RegisterValues>]>([
    ['Please select an account type', { accountType: '' }],
    ['First name is required', { firstName: '' }],
    ['First name too long', { firstName: long(51) }],
    ['Last name is required', { lastName: '' }],
    ['Last name too long', { lastName: long(51) }],
    ['Company name is required', { accountType: 'company', companyName: '' }],
    ['Company name must be at least 2 characters', { accountType: 'company', companyName: 'A' }],
    ['Company name too long', { accountType: 'company', companyName: long(101) }],
    ['Username is required', { username: '' }],
    ['Username must be at least 3 characters', { username: 'ab' }],
    ['Username too long', { username: long(31) }],
    ['Username can only contain letters, numbers, hyphens, and underscores', { username: 'ada lovelace' }],
    ['Username can only contain letters, numbers, hyphens, and underscores', { username: 'ada.l' }],
    ['Email is required', { email: '' }],
    ['Invalid email address', { email: 'ada.example.com' }],
    ['Invalid email address', { email: 'ada@' }],
    ['Password is required', { password: '', confirmPassword: 'x' }],
    ['Password must meet all requirements below', { password: 'abcdefgH', confirmPassword: 'abcdefgH' }],
    ['Please confirm your password', { confirmPassword: '' }],
    ['Passwords do not match', { confirmPassword: 'Analytic1?' }],
  ])('shows %j', async (message, change) => {
    const app = renderRegister();
    await fill(app.user, { ...VALID, ...change });
    await submit(app.user);
    expect(await screen.findByText(message)).toBeTruthy();
    expect(app.api.calls('POST /api/auth/register')).toHaveLength(0);
  });

  it('asks for the company name only for companies', async () => {
    const { user } = renderRegister();
    await screen.findByRole('heading', { name: 'Create your account' });
    expect(screen.queryByLabelText('Company Name')).toBeNull();
    await user.click(screen.getByRole('radio', { name: 'Company' }));
    expect(screen.getByLabelText('Company Name')).toBeTruthy();
    await user.click(screen.getByRole('radio', { name: 'Individual' }));
    expect(screen.queryByLabelText('Company Name')).toBeNull();
  });

  it('accepts a password that passes four of the five checks', async () => {
    const app = renderRegister();
    await fill(app.user, { ...VALID, password: 'analytic1!', confirmPassword: 'analytic1!' });
    await submit(app.user);
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeTruthy();
  });
});
