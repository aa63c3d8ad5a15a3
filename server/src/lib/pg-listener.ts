import pg from 'pg';

export interface PgListenerOptions {
  connectionString: string;
  /** The channel to LISTEN on. */
  channel: string;
  onMessage: (payload: string) => void;
  /** Called after a lost connection is back: messages sent meanwhile were missed. */
  onReconnect?: () => void;
  /** Called when the connection is lost (messages are missed until onReconnect). */
  onLost?: () => void;
  log?: (line: string) => void;
  /** First delay before reconnecting; doubles up to 30 s while the database stays away. */
  retryMs?: number;
}

export interface PgListener {
  stop(): Promise<void>;
}

const MAX_RETRY_MS = 30_000;

/**
 * One dedicated connection (not from the pool) that LISTENs on a channel, reconnecting on error or end.
 * Resolves once listening; the first connection failing rejects (start-up should fail loudly).
 */
export async function startPgListener(options: PgListenerOptions): Promise<PgListener> {
  const {
    connectionString,
    channel,
    onMessage,
    onReconnect,
    onLost,
    log = () => {},
    retryMs = 1000,
  } = options;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let delay = retryMs;
  let stopped = false;

  async function connect(): Promise<void> {
    const next = new pg.Client({ connectionString });
    // Until it listens, a failure rejects below; the loss handlers come after.
    next.on('error', () => {});
    next.on('notification', (msg) => {
      if (msg.channel === channel && msg.payload !== undefined) onMessage(msg.payload);
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${next.escapeIdentifier(channel)}`);
    } catch (err) {
      next.end().catch(() => {});
      throw err;
    }
    if (stopped) {
      // stop() came while this reconnect was under way.
      await next.end().catch(() => {});
      return;
    }
    let lost = false;
    const lose = (reason: string) => {
      if (lost) return;
      lost = true;
      if (client === next) client = undefined;
      next.end().catch(() => {});
      if (!stopped) {
        onLost?.();
        log(`LISTEN ${channel}: connection lost (${reason}), reconnecting`);
        reconnectLater();
      }
    };
    next.on('error', (err) => lose(err.message));
    next.on('end', () => lose('ended'));
    client = next;
    delay = retryMs;
  }

  function reconnectLater(): void {
    if (timer || stopped) return;
    timer = setTimeout(async () => {
      timer = undefined;
      try {
        await connect();
        if (stopped) return;
        log(`LISTEN ${channel}: reconnected`);
        onReconnect?.();
      } catch (err) {
        log(`LISTEN ${channel}: reconnect failed (${err instanceof Error ? err.message : String(err)})`);
        delay = Math.min(delay * 2, MAX_RETRY_MS);
        reconnectLater();
      }
    }, delay);
  }

  await connect();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await client?.end().catch(() => {});
      client = undefined;
    },
  };
}
