import type { FieldErrors } from '../../components/form/use-form.ts';

export interface ResetPasswordValues {
  password: string;
  confirmPassword: string;
}

export const MIN_RESET_PASSWORD_LENGTH = 6;

/** Spec customer-area §5, reset password. */
export function validateResetPassword(values: ResetPasswordValues): FieldErrors<ResetPasswordValues> {
  return {
    password:
      values.password.length < MIN_RESET_PASSWORD_LENGTH
        ? 'Password must be at least 6 characters long'
        : undefined,
    confirmPassword: values.confirmPassword !== values.password ? 'Passwords do not match' : undefined,
  };
}
