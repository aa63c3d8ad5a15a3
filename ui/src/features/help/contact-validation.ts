import type { Schemas } from '@berth/openapi';
import { EMAIL_PATTERN } from '@berth/openapi/rules';
import type { FieldErrors } from '../../components/form/use-form.ts';

export type ContactCategory = Schemas['ContactRequest']['category'];

export const CONTACT_CATEGORIES: readonly { value: ContactCategory; label: string }[] = [
  { value: 'general', label: 'General question' },
  { value: 'technical', label: 'Technical problem' },
  { value: 'billing', label: 'Billing' },
  { value: 'feature', label: 'Feature request' },
  { value: 'bug', label: 'Bug report' },
];

export interface ContactValues {
  name: string;
  email: string;
  subject: string;
  message: string;
  category: string;
}

export const EMPTY_CONTACT: ContactValues = {
  name: '',
  email: '',
  subject: '',
  message: '',
  category: 'general',
};

export const CONTACT_LIMITS = { name: 120, email: 200, subject: 200, message: 5000 } as const;

const required = (value: string, label: string, max: number, tooLong: string) => {
  const trimmed = value.trim();
  if (trimmed.length === 0) return `${label} is required`;
  if (trimmed.length > max) return tooLong;
  return undefined;
};

export const isContactCategory = (value: string): value is ContactCategory =>
  CONTACT_CATEGORIES.some((category) => category.value === value);

/** The contact form and the support form: required fields, limits, a known category. */
export function validateContact(values: ContactValues): FieldErrors<ContactValues> {
  const email = values.email.trim();
  return {
    name: required(values.name, 'Name', CONTACT_LIMITS.name, 'Name is too long'),
    email:
      email.length === 0
        ? 'Email is required'
        : !EMAIL_PATTERN.test(email)
          ? 'Invalid email'
          : email.length > CONTACT_LIMITS.email
            ? 'Email is too long'
            : undefined,
    subject: required(values.subject, 'Subject', CONTACT_LIMITS.subject, 'Subject is too long'),
    message: required(values.message, 'Message', CONTACT_LIMITS.message, 'Message is too long'),
    category: isContactCategory(values.category) ? undefined : 'Please select a valid category',
  };
}
