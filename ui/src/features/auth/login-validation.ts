import type { FieldErrors } from '../../components/form/use-form.ts';

export interface LoginValues {
  emailOrUsername: string;
  password: string;
}

/** Sign-in (the bot check is the form's, see useBotCheck). */
export function validateLogin(values: LoginValues): FieldErrors<LoginValues> {
  const errors: FieldErrors<LoginValues> = {};
  const login = values.emailOrUsername.trim();
  if (login.length === 0) errors.emailOrUsername = 'Email or username is required';
  else if (login.length < 3) errors.emailOrUsername = 'Must be at least 3 characters';
  if (values.password.length === 0) errors.password = 'Password is required';
  return errors;
}
