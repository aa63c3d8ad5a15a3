import { z } from '@hono/zod-openapi';

const CHOOSE_IMAGE = 'Please choose an image file';

export const AvatarUploadBodySchema = z
  .object({
    avatar: z.instanceof(File, { error: CHOOSE_IMAGE }).openapi({
      type: 'string',
      format: 'binary',
      description: 'PNG, JPG, GIF or WEBP image, at most 2 MB',
    }),
  })
  .openapi('AvatarUpload');

export const AvatarFileParamsSchema = z.object({
  file: z.string().openapi({ example: '3f0c9a1b2d4e5f60718293a4b5c6d7e8.png' }),
});
