import type { FieldErrors } from '../../components/form/use-form.ts';
import { newPasswordError } from './password-strength.ts';

export interface ResetPasswordValues {
  password: string;
  confirmPassword: string;
}

/** Reset password, with the registration strength rules (as the server). */
export function validateResetPassword(values: ResetPasswordValues): FieldErrors<ResetPasswordValues> {
  return {
    password: newPasswordError(values.password, 'Password is required'),
    confirmPassword: values.confirmPassword !== values.password ? 'Passwords do not match' : undefined,
  };
}
