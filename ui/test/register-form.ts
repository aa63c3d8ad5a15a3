import { screen } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import type { RegisterValues } from '../src/features/auth/register-validation.ts';

/** A registration that passes every rule. */
export const VALID_REGISTRATION: RegisterValues = {
  accountType: 'individual',
  firstName: 'Ada',
  lastName: 'Lovelace',
  companyName: '',
  username: 'ada_l',
  email: 'ada@example.com',
  password: 'Analytic1!',
  confirmPassword: 'Analytic1!',
};

const LABELS: Record<Exclude<keyof RegisterValues, 'accountType'>, string> = {
  firstName: 'First Name',
  lastName: 'Last Name',
  companyName: 'Company Name',
  username: 'Username',
  email: 'Email',
  password: 'Password',
  confirmPassword: 'Confirm Password',
};

/** Fills the registration form as a user would (empty values are left untouched). */
export async function fillRegistration(user: UserEvent, values: RegisterValues) {
  await screen.findByRole('heading', { name: 'Create your account' });
  if (values.accountType === 'individual')
    await user.click(screen.getByRole('radio', { name: 'Individual' }));
  if (values.accountType === 'company') await user.click(screen.getByRole('radio', { name: 'Company' }));
  for (const [field, label] of Object.entries(LABELS) as [keyof typeof LABELS, string][]) {
    const value = values[field];
    if (value === '') continue;
    await user.click(screen.getByLabelText(label));
    await user.paste(value);
  }
}

export const submitRegistration = (user: UserEvent) =>
  user.click(screen.getByRole('button', { name: 'Create Account' }));
