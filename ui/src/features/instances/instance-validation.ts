import {
  BACKUP_FIELDS,
  DATABASE_PASSWORD_MESSAGE,
  DOMAIN_PATTERN,
  EMAIL_PATTERN,
  FIELD_LIMITS,
  INVALID_DOMAIN_MESSAGE,
  isN8nPassword,
  N8N_PASSWORD,
  NO_CONTROL_CHARACTERS,
  WORDPRESS_ADMIN,
} from '@berth/openapi/rules';
import type { FieldErrors } from '../../components/form/use-form.ts';
import type { Category } from './instance-catalog.ts';

/** Name 1–100 characters, description up to 500. */
export const NAME_MAX = FIELD_LIMITS.instanceName;
export const DESCRIPTION_MAX = FIELD_LIMITS.instanceDescription;

function nameError(name: string): string | undefined {
  if (name === '') return 'Instance name is required';
  const trimmed = name.trim();
  if (trimmed.length < 1) return 'Name is required';
  return trimmed.length > NAME_MAX ? 'Name too long' : undefined;
}

const descriptionError = (description: string): string | undefined =>
  description.trim().length > DESCRIPTION_MAX ? 'Description too long' : undefined;

export interface DeployValues {
  /** The chosen type id ('' until one is chosen). */
  type: string;
  name: string;
  description: string;
  region: string;
}

/** The Deploy New Instance form: a choice, a name and an optional description. */
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

/** Instance update: the name is required, at most 100; the description at most 500. */
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

const { min: PASSWORD_MIN, max: PASSWORD_MAX } = FIELD_LIMITS.databasePassword;

/** Change database password: both fields equal; the server's length rule checked first. */
export function validateDatabasePassword(
  values: DatabasePasswordValues,
): FieldErrors<DatabasePasswordValues> {
  const { password } = values;
  return {
    password: !password
      ? 'Password is required'
      : password.length < PASSWORD_MIN ||
          password.length > PASSWORD_MAX ||
          !NO_CONTROL_CHARACTERS.test(password)
        ? DATABASE_PASSWORD_MESSAGE
        : undefined,
    confirmPassword: values.confirmPassword !== password ? 'Passwords do not match' : undefined,
  };
}

/** The domain as the server wants it: trimmed, without http(s):// and a trailing slash. */
export const normaliseDomain = (domain: string): string =>
  domain
    .trim()
    .replace(/^https?:\/\//i, '')
    .replace(/\/+$/, '');

/** With the server's words; a pasted http(s):// and trailing slash are dropped, not refused. */
export function domainError(domain: string): string | undefined {
  const value = normaliseDomain(domain);
  if (!value) return 'Domain is required';
  return DOMAIN_PATTERN.test(value) ? undefined : INVALID_DOMAIN_MESSAGE;
}

export type DomainType = 'Temporary' | 'Custom Domain';

export interface WordPressValues {
  domainType: DomainType;
  customDomain: string;
  title: string;
  username: string;
  email: string;
  password: string;
  /** A PHP version the server offers ('' until its choices are known: the server's default then). */
  php: string;
}

export const INITIAL_WORDPRESS: WordPressValues = {
  domainType: 'Temporary',
  customDomain: '',
  title: '',
  username: '',
  email: '',
  password: '',
  php: '',
};

/** The WordPress part of the deploy form; `wordpress` false checks only the domain type. */
export function validateWordPress(values: WordPressValues, wordpress: boolean): FieldErrors<WordPressValues> {
  const customDomain =
    values.domainType === 'Custom Domain'
      ? values.customDomain.trim()
        ? domainError(values.customDomain)
        : 'Custom domain is required'
      : undefined;
  if (!wordpress) return { customDomain };
  return {
    customDomain,
    title: !values.title.trim()
      ? 'Site title is required'
      : values.title.trim().length > WORDPRESS_ADMIN.titleMax
        ? 'Site title too long'
        : undefined,
    username: !values.username.trim()
      ? 'Admin username is required'
      : values.username.trim().length > WORDPRESS_ADMIN.usernameMax
        ? 'Admin username too long'
        : undefined,
    email: !values.email.trim()
      ? 'Admin email is required'
      : EMAIL_PATTERN.test(values.email.trim())
        ? undefined
        : 'Invalid email',
    password: !values.password
      ? 'Admin password is required'
      : values.password.length < WORDPRESS_ADMIN.passwordMin
        ? WORDPRESS_ADMIN.passwordShort
        : values.password.length > WORDPRESS_ADMIN.passwordMax
          ? WORDPRESS_ADMIN.passwordLong
          : undefined,
  };
}

/** n8n: the owner account the editor is set up with (e-mail, password by n8n's rules). */
export function validateN8n(values: WordPressValues): FieldErrors<WordPressValues> {
  const password = values.password;
  return {
    email: !values.email.trim()
      ? 'Owner email is required'
      : EMAIL_PATTERN.test(values.email.trim())
        ? undefined
        : 'Invalid email',
    password: !password
      ? 'Owner password is required'
      : isN8nPassword(password)
        ? undefined
        : N8N_PASSWORD.message,
  };
}

export interface BackupValues {
  name: string;
  note: string;
}

export const BACKUP_NAME_MAX = BACKUP_FIELDS.nameMax;
export const BACKUP_NOTE_MAX = BACKUP_FIELDS.noteMax;

/** A backup name is required (at most 100), a note optional (at most 500). */
export const validateBackup = (values: BackupValues): FieldErrors<BackupValues> => ({
  name: !values.name.trim()
    ? 'Backup name is required'
    : values.name.trim().length > BACKUP_NAME_MAX
      ? 'Name too long'
      : undefined,
  note: values.note.trim().length > BACKUP_NOTE_MAX ? 'Note too long' : undefined,
});
