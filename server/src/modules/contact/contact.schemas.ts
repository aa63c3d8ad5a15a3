import { z } from '@hono/zod-openapi';

// Limits and messages of the help form.
export const CONTACT_CATEGORIES = ['general', 'technical', 'billing', 'feature', 'bug'] as const;

const text = (label: string, max: number) =>
  z
    .string({ error: `${label} is required` })
    .trim()
    .min(1, `${label} is required`)
    .max(max, `${label} is too long`);

export const ContactBodySchema = z
  .object({
    name: text('Name', 120),
    email: text('Email', 200).regex(/^\S+@\S+\.\S+$/, 'Invalid email'),
    subject: text('Subject', 200),
    message: text('Message', 5000),
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
