import { z } from '@hono/zod-openapi';

const ApiKeyInfoSchema = z
  .object({
    id: z.uuid(),
    label: z.string().openapi({ example: 'CI deploys' }),
    notes: z.string().openapi({ example: 'Used by the nightly pipeline' }),
    prefix: z.string().openapi({ example: 'berth_sk_' }),
    last4: z.string().openapi({ example: 'Q3xZ' }),
    /** What the key list shows instead of the key. */
    masked: z.string().openapi({ example: 'berth_sk_…Q3xZ' }),
    createdAt: z.iso.datetime(),
    lastUsedAt: z.iso.datetime().nullable().openapi({ description: 'To the minute; null before first use' }),
  })
  .openapi('ApiKeyInfo');

export const ApiKeyListSchema = z.object({ keys: z.array(ApiKeyInfoSchema) }).openapi('ApiKeyList');

export const NewApiKeySchema = z
  .object({
    apiKey: z.string().openapi({
      description: 'The whole key. Shown this once: only its hash is stored.',
      example: 'berth_sk_4f1c0a9e2b7d43c8a1e5f60b9d2c7e31Q3xZ',
    }),
    key: ApiKeyInfoSchema,
    message: z.string(),
  })
  .openapi('NewApiKey');

export const ApiKeyMetaSchema = z
  .object({
    label: z.string().trim().max(100, 'Label too long').default(''),
    notes: z.string().trim().max(1000, 'Notes too long').default(''),
  })
  .openapi('ApiKeyMetaRequest');

export const ApiKeyParamsSchema = z.object({
  id: z
    .string()
    .openapi({ param: { name: 'id', in: 'path' }, example: '3f0c1f5e-8a1b-4c1e-9a3e-2d4b5c6d7e8f' }),
});

export const ApiKeyChangeSchema = z
  .object({ key: ApiKeyInfoSchema, message: z.string() })
  .openapi('ApiKeyChange');

export type ApiKeyInfo = z.infer<typeof ApiKeyInfoSchema>;
export type ApiKeyMeta = z.infer<typeof ApiKeyMetaSchema>;
