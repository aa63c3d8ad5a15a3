import type { FieldErrors } from '../../components/form/use-form.ts';
import { newPasswordError } from '../auth/password-strength.ts';
import { nameError, usernameError } from '../auth/register-validation.ts';

export interface PersonalValues {
  firstName: string;
  lastName: string;
  username: string;
}

export interface PasswordChangeValues {
  currentPassword: string;
  newPassword: string;
  confirmPassword: string;
}

export const EMPTY_PASSWORD_CHANGE: PasswordChangeValues = {
  currentPassword: '',
  newPassword: '',
  confirmPassword: '',
};

/** The registration's own checks and messages. */
export function validatePersonal(values: PersonalValues): FieldErrors<PersonalValues> {
  return {
    firstName: nameError(values.firstName, 'First name'),
    lastName: nameError(values.lastName, 'Last name'),
    username: usernameError(values.username),
  };
}

/** Password change, with the registration strength rules (as the server). */
export function validatePasswordChange(values: PasswordChangeValues): FieldErrors<PasswordChangeValues> {
  return {
    currentPassword: values.currentPassword ? undefined : 'Current password is required',
    newPassword: newPasswordError(values.newPassword, 'New password is required'),
    confirmPassword: !values.confirmPassword
      ? 'Please confirm your new password'
      : values.confirmPassword !== values.newPassword
        ? 'Passwords do not match'
        : undefined,
  };
}

/** PNG, JPG, GIF or WEBP, up to 2 MB. */
export const AVATAR_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
const AVATAR_MAX_BYTES = 2 * 1024 * 1024;
export const AVATAR_HINT = 'PNG, JPG, GIF or WEBP up to 2 MB';

/** Why a picture cannot be uploaded, checked before sending (the server checks the content again). */
export function avatarFileError(file: Pick<File, 'type' | 'size'>): string | undefined {
  if (!(AVATAR_TYPES as readonly string[]).includes(file.type))
    return 'Avatar must be a PNG, JPG, GIF or WEBP image';
  if (file.size > AVATAR_MAX_BYTES) return 'Avatar must be 2 MB or smaller';
  return undefined;
}
