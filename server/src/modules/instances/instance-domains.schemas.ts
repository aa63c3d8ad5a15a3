import { DOMAIN_PATTERN, INVALID_DOMAIN_MESSAGE } from '@berth/openapi/rules';
import { z } from '@hono/zod-openapi';
import { DOMAIN_STATUSES } from '../../db/tables/instances.ts';

// A site's custom domain: how it is verified, attached and served over HTTPS.

const SSL_STATUSES = ['Active', 'Pending', 'FAILED'] as const;

const DomainVerificationSchema = z
  .object({
    status: z.enum(DOMAIN_STATUSES).openapi({
      description:
        '`pending` until the TXT record proves the account controls the domain, `verified` then, `attached` once the site answers on it (SSL follows); `failed` when it was not proven within 72 hours or another account holds the domain',
    }),
    record: z
      .object({
        type: z.literal('TXT'),
        name: z.string().openapi({ example: '_berth-verify.shop.example.com' }),
        value: z.string().openapi({ example: 'berth-verify=4f1c0a9e2b7d43c8a1e5f60b9d2c7e31' }),
      })
      .openapi({ description: 'The DNS record to add at the domain’s DNS provider' }),
    lastChecked: z.iso.datetime().nullable().openapi({ description: 'Null before the first lookup' }),
    message: z.string().nullable().openapi({ description: 'What the last lookup found' }),
  })
  .openapi('DomainVerification');

export const CustomDomainSchema = z
  .object({
    domain: z.string().openapi({ example: 'shop.example.com' }),
    addedAt: z.iso.datetime().nullable(),
    isActive: z.boolean().openapi({ description: 'Whether its certificate was Active at the last check' }),
    ssl: z.object({
      status: z.enum(SSL_STATUSES),
      isPrimary: z.boolean().openapi({
        description:
          'Whether the domain is the site’s address (its URL, and WordPress’ own): true once it is attached',
      }),
      message: z.string(),
      lastChecked: z.iso.datetime().nullable().openapi({ description: 'Null before the first check' }),
    }),
    verification: DomainVerificationSchema,
  })
  .openapi('CustomDomain');

export const DomainSchema = z
  .string({ error: 'Domain is required' })
  .trim()
  .min(1, 'Domain is required')
  .regex(DOMAIN_PATTERN, INVALID_DOMAIN_MESSAGE)
  .transform((domain) => domain.toLowerCase());

export const DomainBodySchema = z
  .object({ domain: DomainSchema.openapi({ type: 'string', example: 'shop.example.com' }) })
  .openapi('InstanceDomainRequest');

const SslSchema = z
  .object({
    status: z.enum(SSL_STATUSES),
    message: z.string().openapi({ example: 'HTTPS is enabled' }),
    lastChecked: z.iso.datetime(),
    expiresAt: z.iso.datetime().nullable(),
  })
  .openapi('SslStatus');

export const SslResultSchema = z
  .object({
    ssl: SslSchema.nullable().openapi({ description: 'Null without a custom domain' }),
    status: z
      .enum([...SSL_STATUSES, 'none'])
      .openapi({ description: 'The same as ssl.status; `none` without a custom domain' }),
    message: z.string().optional(),
  })
  .openapi('SslResult');

export type SslResult = z.infer<typeof SslResultSchema>;
