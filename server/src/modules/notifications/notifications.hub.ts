/** The PostgreSQL channel every server process LISTENs on (main.ts). Payloads carry ids only. */
export const NOTIFICATIONS_CHANNEL = 'notifications';

/** What writers send with pg_notify when they insert a notification. */
export interface NotificationSignal {
  userId: string;
  id: string;
}

/** What an open stream hears: a new notification of its user, or "you may have missed some". */
export type HubEvent = { kind: 'notification'; id: string } | { kind: 'resync' };

/**
 * The open notification streams of this process, by user. The process's LISTEN client feeds it
 * (`publish`); with no listener (tests of plain routes, the OpenAPI generator) streams only get
 * heartbeats and replays.
 */
export interface NotificationHub {
  subscribe(userId: string, listener: (event: HubEvent) => void): () => void;
  /** Delivers one pg_notify payload (JSON NotificationSignal) to the streams of its user. */
  publish(payload: string): void;
  /** Tells every stream to refetch, e.g. after the LISTEN connection was lost for a while. */
  resync(): void;
}

function parseSignal(payload: string): NotificationSignal | undefined {
  try {
    const value: unknown = JSON.parse(payload);
    if (typeof value !== 'object' || value === null) return undefined;
    const { userId, id } = value as Record<string, unknown>;
    return typeof userId === 'string' && typeof id === 'string' ? { userId, id } : undefined;
  } catch {
    return undefined;
  }
}

export function createNotificationHub(): NotificationHub {
  const listeners = new Map<string, Set<(event: HubEvent) => void>>();
  return {
    subscribe(userId, listener) {
      const set = listeners.get(userId) ?? new Set();
      set.add(listener);
      listeners.set(userId, set);
      return () => {
        set.delete(listener);
        if (set.size === 0 && listeners.get(userId) === set) listeners.delete(userId);
      };
    },
    publish(payload) {
      const signal = parseSignal(payload);
      if (!signal) return;
      for (const listener of listeners.get(signal.userId) ?? [])
        listener({ kind: 'notification', id: signal.id });
    },
    resync() {
      for (const set of listeners.values()) for (const listener of set) listener({ kind: 'resync' });
    },
  };
}
