import { startPgListener } from '../../lib/pg-listener.ts';

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
  status: 'deploying' | 'running' | 'suspended' | 'error' | 'deleting' | 'restoring' | 'deleted';
  statusMessage: string | null;
  /** A backup or restore of the instance moved on (its progress), when that is what changed. */
  backup?: BackupEvent;
}

/** Where a backup (or a restore from it) of an instance stands, as the stream sends it. */
export interface BackupEvent {
  id: string;
  /** running, complete or failed: the backup's; `restoring` / `restored` / `restore-failed` for a restore. */
  status: 'running' | 'complete' | 'failed' | 'restoring' | 'restored' | 'restore-failed';
  step: string | null;
  /** Bytes written (a backup) or read (a restore) so far. */
  bytes: number;
  /** Why it failed, in words, with the log reference. */
  error: string | null;
}

const BACKUP_STATUSES = new Set(['running', 'complete', 'failed', 'restoring', 'restored', 'restore-failed']);

function parseBackup(value: unknown): BackupEvent | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { id, status, step, bytes, error } = value as Record<string, unknown>;
  if (typeof id !== 'string' || typeof status !== 'string' || !BACKUP_STATUSES.has(status)) return undefined;
  return {
    id,
    status: status as BackupEvent['status'],
    step: typeof step === 'string' ? step : null,
    bytes: typeof bytes === 'number' ? bytes : 0,
    error: typeof error === 'string' ? error : null,
  };
}

/** What the instance engine sends with pg_notify when an instance's status changes. */
export interface InstanceSignal {
  kind: 'instance';
  userId: string;
  instance: InstanceEvent;
}

/**
 * What the usage module sends with pg_notify after each sample of an instance: its new point, passed on
 * to the owner's open streams as it is (`event: usage`; the usage module's UsagePoint, a few hundred
 * bytes). Nothing is stored here: a page that missed it refetches.
 */
export interface UsageSignal {
  kind: 'usage';
  userId: string;
  instanceId: string;
  point: unknown;
}

/**
 * What a password change or reset sends with pg_notify: the user's token version is now `tokenVersion`,
 * so every earlier access token is dead and the user's open streams close.
 */
export interface SessionSignal {
  kind: 'session';
  userId: string;
  tokenVersion: number;
}

/**
 * What an open stream hears: a new notification of its user, an instance of its user that changed, or
 * "you may have missed some".
 */
export type HubEvent =
  | { kind: 'notification'; id: string }
  | { kind: 'instance'; instance: InstanceEvent }
  | { kind: 'usage'; instanceId: string; point: unknown }
  | { kind: 'signed-out'; tokenVersion: number }
  | { kind: 'resync' };

/** Who keeps something per user that a session signal makes stale (the token-version cache). */
interface SessionWatcher {
  /** The user's token version changed (announced by some server process). */
  revoked(userId: string): void;
  /** Whether a LISTEN connection feeds the hub right now; signals may have been missed before a change. */
  live(live: boolean): void;
}

/**
 * The open notification streams of this process, by user. The process's LISTEN client feeds it
 * (`publish`); with no listener (tests of plain routes, the OpenAPI generator) streams only get
 * heartbeats and replays.
 */
export interface NotificationHub {
  subscribe(userId: string, listener: (event: HubEvent) => void): () => void;
  /**
   * Delivers one pg_notify payload (JSON NotificationSignal, InstanceSignal or SessionSignal) to the
   * streams of its user (and session signals to the session watchers).
   */
  publish(payload: string): void;
  /** Tells every stream to refetch, e.g. after the LISTEN connection was lost for a while. */
  resync(): void;
  /**
   * Whether a LISTEN connection feeds this hub (main.ts: on once listening, off when the connection is
   * lost, on again with a resync). Off by default: tests of plain routes and the OpenAPI generator.
   */
  setLive(live: boolean): void;
  watchSessions(watcher: SessionWatcher): () => void;
}

const INSTANCE_STATUSES = new Set([
  'deploying',
  'running',
  'suspended',
  'error',
  'deleting',
  'restoring',
  'deleted',
]);

function parseInstance(value: unknown): InstanceEvent | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { id, status, statusMessage, backup } = value as Record<string, unknown>;
  if (typeof id !== 'string' || typeof status !== 'string' || !INSTANCE_STATUSES.has(status))
    return undefined;
  const progress = parseBackup(backup);
  return {
    id,
    status: status as InstanceEvent['status'],
    statusMessage: typeof statusMessage === 'string' ? statusMessage : null,
    ...(progress && { backup: progress }),
  };
}

function parseSignal(payload: string): { userId: string; event: HubEvent } | undefined {
  try {
    const value: unknown = JSON.parse(payload);
    if (typeof value !== 'object' || value === null) return undefined;
    const { userId, id, kind, instance, tokenVersion, instanceId, point } = value as Record<string, unknown>;
    if (typeof userId !== 'string') return undefined;
    if (kind === 'usage') {
      return typeof instanceId === 'string' && typeof point === 'object' && point !== null
        ? { userId, event: { kind: 'usage', instanceId, point } }
        : undefined;
    }
    if (kind === 'session') {
      return typeof tokenVersion === 'number' && Number.isSafeInteger(tokenVersion)
        ? { userId, event: { kind: 'signed-out', tokenVersion } }
        : undefined;
    }
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
  const watchers = new Set<SessionWatcher>();
  let live = false;
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
      if (signal.event.kind === 'signed-out') for (const watcher of watchers) watcher.revoked(signal.userId);
      for (const listener of listeners.get(signal.userId) ?? []) listener(signal.event);
    },
    resync() {
      for (const watcher of watchers) watcher.live(live);
      for (const set of listeners.values()) for (const listener of set) listener({ kind: 'resync' });
    },
    setLive(value) {
      live = value;
      for (const watcher of watchers) watcher.live(live);
    },
    watchSessions(watcher) {
      watchers.add(watcher);
      watcher.live(live);
      return () => {
        watchers.delete(watcher);
      };
    },
  };
}

/**
 * A hub fed by this process's one LISTEN connection, as every server process runs it: live while the
 * connection is up (streams and the token-version cache rely on that), resynced after a reconnect.
 */
export async function startLiveHub(options: {
  connectionString: string;
  log?: (line: string) => void;
  /** First reconnect delay (tests make it short). */
  retryMs?: number;
}): Promise<{ hub: NotificationHub; stop(): Promise<void> }> {
  const hub = createNotificationHub();
  const listener = await startPgListener({
    connectionString: options.connectionString,
    channel: NOTIFICATIONS_CHANNEL,
    onMessage: hub.publish,
    onLost: () => hub.setLive(false),
    onReconnect: () => {
      hub.setLive(true);
      hub.resync();
    },
    log: options.log,
    retryMs: options.retryMs,
  });
  hub.setLive(true);
  return { hub, stop: () => listener.stop() };
}
