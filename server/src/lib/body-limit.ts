import { Readable } from 'node:stream';
import type { MiddlewareHandler } from 'hono';
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

/** How long a body still unread may take to arrive before the answer goes without the rest. */
const DRAIN_TIMEOUT_MS = 10_000;

async function drain(body: ReadableStream<Uint8Array> | null): Promise<void> {
  if (!body) return;
  const reader = body.getReader();
  // A client that stops sending does not hold its answer (nor this request) for long.
  const timer = setTimeout(() => void reader.cancel().catch(() => {}), DRAIN_TIMEOUT_MS);
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
  } finally {
    clearTimeout(timer);
  }
}

/** Whether the request says it carries a body (a GET may too), without touching the body itself. */
const announcesBody = (headers: { header(name: string): string | undefined }) =>
  Number(headers.header('content-length') ?? 0) > 0 || headers.header('transfer-encoding') !== undefined;

/**
 * Every answer goes out after its request's body was read. A route or a limiter that answers without
 * reading it (401 before the body is looked at, 429, 404, a GET sent with a body) has the rest read and
 * thrown away first, up to DRAIN_LIMIT_BYTES and DRAIN_TIMEOUT_MS: a client that sends its whole body
 * before reading the answer (Node's fetch, most HTTP libraries) then gets the answer instead of a
 * connection reset. Registered first, so it wraps every other middleware and route.
 */
export const answerAfterBody: MiddlewareHandler = async (c, next) => {
  await next();
  // Asked of the headers first: the Node adapter builds a full Request only when the body is touched.
  if (!announcesBody(c.req)) return;
  const { method } = c.req;
  if (method === 'GET' || method === 'HEAD') {
    // A Fetch Request of these methods has no body: what was sent is read off Node's own request.
    const incoming = (c.env as { incoming?: Readable } | undefined)?.incoming;
    if (incoming && !incoming.readableEnded)
      await drain(Readable.toWeb(incoming) as ReadableStream<Uint8Array>);
    return;
  }
  const raw = c.req.raw;
  if (!raw.bodyUsed) await drain(raw.body);
};

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
