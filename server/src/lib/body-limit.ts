import { bodyLimit } from 'hono/body-limit';
import { PayloadTooLargeError } from './errors.ts';

/** JSON bodies of every API route (the avatar upload has its own, larger limit). */
export const MAX_JSON_BODY_BYTES = 256 * 1024;

/**
 * How much of a refused body is still read (and thrown away) before answering, so clients that only
 * read the answer after sending everything (Node's fetch, for one) see the 413 instead of a broken pipe.
 * Larger bodies are cut off.
 */
const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

async function drain(body: ReadableStream<Uint8Array> | null): Promise<void> {
  if (!body) return;
  const reader = body.getReader();
  let read = 0;
  try {
    while (read <= DRAIN_LIMIT_BYTES) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The client went away; nothing left to answer.
  }
}

/**
 * Refuses a body over `maxBytes` with 413 in the app's error shape, as soon as Content-Length (or the
 * bytes streamed so far) says so, before anything parses it.
 */
export function limitBody(maxBytes: number, message?: string) {
  return bodyLimit({
    maxSize: maxBytes,
    onError: async (c) => {
      if (!c.req.raw.bodyUsed) await drain(c.req.raw.body);
      throw new PayloadTooLargeError(message);
    },
  });
}
