import { bodyLimit } from 'hono/body-limit';
import { PayloadTooLargeError } from './errors.ts';

/** JSON bodies of every API route (the avatar upload has its own, larger limit). */
export const MAX_JSON_BODY_BYTES = 256 * 1024;

/**
 * Refuses a body over `maxBytes` with 413 in the app's error shape, as soon as Content-Length (or the
 * bytes streamed so far) says so, before anything parses it.
 */
export function limitBody(maxBytes: number, message?: string) {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new PayloadTooLargeError(message);
    },
  });
}
