import { EMAIL_PATTERN } from '@berth/openapi/rules';
import { z } from '@hono/zod-openapi';

// Limits and messages of the help form.
export const CONTACT_CATEGORIES = ['general', 'technical', 'billing', 'feature', 'bug'] as const;

/** A required text field: trimmed, not empty, at most `max` characters (also for help-desk tickets). */
export const requiredText = (label: string, max: number) =>
  z
    .string({ error: `${label} is required` })
    .trim()
    .min(1, `${label} is required`)
    .max(max, `${label} is too long`);

export const ContactBodySchema = z
  .object({
    name: requiredText('Name', 120),
    email: requiredText('Email', 200).regex(EMAIL_PATTERN, 'Invalid email'),
    subject: requiredText('Subject', 200),
    message: requiredText('Message', 5000),
    category: z.enum(CONTACT_CATEGORIES, { error: 'Please select a valid category' }),
    path: z
      .string()
      .trim()
      .max(500, 'Path is too long')
      .optional()
      .openapi({ description: 'Page sent from' }),
    turnstileToken: z.string().max(2048).optional(),
  })
  .openapi('ContactRequest');

export type ContactBody = z.infer<typeof ContactBodySchema>;
