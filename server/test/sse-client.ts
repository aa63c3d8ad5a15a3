/** One Server-Sent Events message as it came over the wire. */
export interface SseMessage {
  event?: string;
  id?: string;
  data?: string;
  retry?: number;
  /** A `: …` comment line (heartbeat). */
  comment?: string;
}

function parse(block: string): SseMessage {
  const message: SseMessage = {};
  for (const line of block.split('\n')) {
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === '') message.comment = value;
    else if (field === 'event' || field === 'id') message[field] = value;
    else if (field === 'data')
      message.data = message.data === undefined ? value : `${message.data}\n${value}`;
    else if (field === 'retry') message.retry = Number(value);
  }
  return message;
}

/**
 * Opens an event stream with fetch over a real socket and collects its messages; `next` waits for the
 * next message (after those already taken) that matches.
 */
export async function openEventStream(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const messages: SseMessage[] = [];
  let taken = 0;
  let arrived = () => {};

  const ended = (async () => {
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          messages.push(parse(buffer.slice(0, end)));
          buffer = buffer.slice(end + 2);
          arrived();
        }
      }
    } catch {
      // aborted by close()
    }
  })();

  return {
    response,
    messages,
    /** Resolves when the response body ends (the server closed the stream, or close() was called). */
    ended,
    async next(match: (m: SseMessage) => boolean = () => true, timeoutMs = 2000): Promise<SseMessage> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        while (taken < messages.length) {
          const message = messages[taken++] as SseMessage;
          if (match(message)) return message;
        }
        const left = deadline - Date.now();
        if (left <= 0)
          throw new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(messages)}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          arrived = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    },
    close: () => controller.abort(),
  };
}

export type EventStream = Awaited<ReturnType<typeof openEventStream>>;
