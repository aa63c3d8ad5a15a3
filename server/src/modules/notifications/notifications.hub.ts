/** The PostgreSQL channel every server process LISTENs on (main.ts). Payloads carry ids only. */
export const NOTIFICATIONS_CHANNEL = 'notifications';

/** What writers send with pg_notify when they insert a notification. */
export interface NotificationSignal {
  userId: string;
  id: string;
}

/** A change of one instance's status, as the stream sends it (`event: instance`). */
export interface InstanceEvent {
  id: string;
  /** The instance's status, or `deleted` once it is gone. */
  status: 'deploying' | 'running' | 'suspended' | 'error' | 'deleting' | 'deleted';
  statusMessage: string | null;
}

/** What the instance engine sends with pg_notify when an instance's status changes. */
export interface InstanceSignal {
  kind: 'instance';
  userId: string;
  instance: InstanceEvent;
}

/**
 * What an open stream hears: a new notification of its user, an instance of its user that changed, or
 * "you may have missed some".
 */
export type HubEvent =
  | { kind: 'notification'; id: string }
  | { kind: 'instance'; instance: InstanceEvent }
  | { kind: 'resync' };

/**
 * The open notification streams of this process, by user. The process's LISTEN client feeds it
 * (`publish`); with no listener (tests of plain routes, the OpenAPI generator) streams only get
 * heartbeats and replays.
 */
export interface NotificationHub {
  subscribe(userId: string, listener: (event: HubEvent) => void): () => void;
  /** Delivers one pg_notify payload (JSON NotificationSignal or InstanceSignal) to the streams of its user. */
  publish(payload: string): void;
  /** Tells every stream to refetch, e.g. after the LISTEN connection was lost for a while. */
  resync(): void;
}

const INSTANCE_STATUSES = new Set(['deploying', 'running', 'suspended', 'error', 'deleting', 'deleted']);

function parseInstance(value: unknown): InstanceEvent | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { id, status, statusMessage } = value as Record<string, unknown>;
  if (typeof id !== 'string' || typeof status !== 'string' || !INSTANCE_STATUSES.has(status))
    return undefined;
  return {
    id,
    status: status as InstanceEvent['status'],
    statusMessage: typeof statusMessage === 'string' ? statusMessage : null,
  };
}

function parseSignal(payload: string): { userId: string; event: HubEvent } | undefined {
  try {
    const value: unknown = JSON.parse(payload);
    if (typeof value !== 'object' || value === null) return undefined;
    const { userId, id, kind, instance } = value as Record<string, unknown>;
    if (typeof userId !== 'string') return undefined;
    if (kind === 'instance') {
      const event = parseInstance(instance);
      return event && { userId, event: { kind: 'instance', instance: event } };
    }
    return typeof id === 'string' ? { userId, event: { kind: 'notification', id } } : undefined;
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
      for (const listener of listeners.get(signal.userId) ?? []) listener(signal.event);
    },
    resync() {
      for (const set of listeners.values()) for (const listener of set) listener({ kind: 'resync' });
    },
  };
}
