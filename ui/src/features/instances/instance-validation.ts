import type { FieldErrors } from '../../components/form/use-form.ts';
import type { Category } from './instance-catalog.ts';

/** Spec customer-area §5, §9: name 1–100 characters, description up to 500. */
export const NAME_MAX = 100;
export const DESCRIPTION_MAX = 500;

export function nameError(name: string): string | undefined {
  if (name === '') return 'Instance name is required';
  const trimmed = name.trim();
  if (trimmed.length < 1) return 'Name is required';
  return trimmed.length > NAME_MAX ? 'Name too long' : undefined;
}

export const descriptionError = (description: string): string | undefined =>
  description.trim().length > DESCRIPTION_MAX ? 'Description too long' : undefined;

export interface DeployValues {
  /** The chosen type id ('' until one is chosen). */
  type: string;
  name: string;
  description: string;
  region: string;
}

/** The Deploy New Instance form (spec §5): a choice, a name and an optional description. */
export function validateDeploy(values: DeployValues, category: Category): FieldErrors<DeployValues> {
  return {
    type: values.type
      ? undefined
      : category === 'database'
        ? 'Please select a database'
        : 'Please select an application',
    name: nameError(values.name),
    description: descriptionError(values.description),
  };
}

export interface InstanceSettingsValues {
  name: string;
  description: string;
}

/** Instance update (spec §5): the name is required, at most 100; the description at most 500. */
export function validateInstanceSettings(
  values: InstanceSettingsValues,
): FieldErrors<InstanceSettingsValues> {
  return { name: nameError(values.name), description: descriptionError(values.description) };
}

export interface QuickDeployValues {
  name: string;
  region: string;
}

export const validateQuickDeploy = (values: QuickDeployValues): FieldErrors<QuickDeployValues> => ({
  name: nameError(values.name),
});

export interface DatabasePasswordValues {
  password: string;
  confirmPassword: string;
}

export const EMPTY_DATABASE_PASSWORD: DatabasePasswordValues = { password: '', confirmPassword: '' };

/** The server's rule for database passwords, in its words. */
export const DATABASE_PASSWORD_RULE =
  'A database password must be 8 to 128 characters without control characters';

// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** Change database password (spec §5): both fields equal; the server's length rule checked first. */
export function validateDatabasePassword(
  values: DatabasePasswordValues,
): FieldErrors<DatabasePasswordValues> {
  const { password } = values;
  return {
    password: !password
      ? 'Password is required'
      : password.length < 8 || password.length > 128 || CONTROL_CHARACTERS.test(password)
        ? DATABASE_PASSWORD_RULE
        : undefined,
    confirmPassword: values.confirmPassword !== password ? 'Passwords do not match' : undefined,
  };
}
