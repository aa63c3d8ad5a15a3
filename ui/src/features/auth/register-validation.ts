import { FIELD_LIMITS } from '@berth/openapi/rules';
import type { FieldErrors } from '../../components/form/use-form.ts';
import { newPasswordError } from './password-strength.ts';

export interface RegisterValues {
  accountType: '' | 'individual' | 'company';
  firstName: string;
  lastName: string;
  companyName: string;
  username: string;
  email: string;
  password: string;
  confirmPassword: string;
}

export const EMPTY_REGISTER_VALUES: RegisterValues = {
  accountType: '',
  firstName: '',
  lastName: '',
  companyName: '',
  username: '',
  email: '',
  password: '',
  confirmPassword: '',
};

const USERNAME_PATTERN = /^[A-Za-z0-9_-]+$/;
const EMAIL_PATTERN = /^\S+@\S+$/;

/** First and last name, as registration and the profile check them (the server's limits). */
export function nameError(value: string, label: 'First name' | 'Last name'): string | undefined {
  const name = value.trim();
  if (name.length === 0) return `${label} is required`;
  if (name.length > FIELD_LIMITS.personName) return `${label} too long`;
  return undefined;
}

function companyError(value: string): string | undefined {
  const company = value.trim();
  if (company.length === 0) return 'Company name is required';
  if (company.length < FIELD_LIMITS.companyName.min) return 'Company name must be at least 2 characters';
  if (company.length > FIELD_LIMITS.companyName.max) return 'Company name too long';
  return undefined;
}

/** The user name, as registration and the profile check it (the server's limits). */
export function usernameError(value: string): string | undefined {
  const username = value.trim();
  if (username.length === 0) return 'Username is required';
  if (username.length < FIELD_LIMITS.username.min) return 'Username must be at least 3 characters';
  if (username.length > FIELD_LIMITS.username.max) return 'Username too long';
  if (!USERNAME_PATTERN.test(username))
    return 'Username can only contain letters, numbers, hyphens, and underscores';
  return undefined;
}

function emailError(value: string): string | undefined {
  const email = value.trim();
  if (email.length === 0) return 'Email is required';
  if (!EMAIL_PATTERN.test(email)) return 'Invalid email address';
  return undefined;
}

/** Registration, as the server checks it (the bot check: useBotCheck). */
export function validateRegister(values: RegisterValues): FieldErrors<RegisterValues> {
  const errors: FieldErrors<RegisterValues> = {
    accountType: values.accountType === '' ? 'Please select an account type' : undefined,
    firstName: nameError(values.firstName, 'First name'),
    lastName: nameError(values.lastName, 'Last name'),
    companyName: values.accountType === 'company' ? companyError(values.companyName) : undefined,
    username: usernameError(values.username),
    email: emailError(values.email),
    password: newPasswordError(values.password, 'Password is required'),
    confirmPassword:
      values.confirmPassword.length === 0
        ? 'Please confirm your password'
        : values.confirmPassword !== values.password
          ? 'Passwords do not match'
          : undefined,
  };
  return errors;
}
