import type { z } from '@hono/zod-openapi';
import { ValidationError } from '../../../lib/errors.ts';
import { DomainSchema } from '../instance-domains.schemas.ts';
import type { DeployBody } from '../instances.schemas.ts';

/** `body` read by a kind's schema: its fields, or a ValidationError with the first field's message. */
export function parseFields<S extends z.ZodType>(schema: S, body: DeployBody): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new ValidationError(parsed.error.issues[0]?.message ?? 'Invalid request');
  return parsed.data;
}

/** The custom domain an application is deployed with, checked and lower-cased; undefined for a temporary URL. */
export function customDomainOf(body: DeployBody): string | undefined {
  if (body.domainType !== 'Custom Domain') return undefined;
  if (!body.customDomain) throw new ValidationError('Custom domain is required');
  const checked = DomainSchema.safeParse(body.customDomain);
  if (!checked.success) throw new ValidationError(checked.error.issues[0]?.message ?? 'Invalid request');
  return checked.data;
}
