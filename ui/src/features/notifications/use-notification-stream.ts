import type { InstanceStreamEvent, Schemas } from '@berth/openapi';
import { useEffect, useRef } from 'react';
import { unwrap } from '../../api/api-error.ts';
import type { UsageStreamEvent } from '../../api/usage.queries.ts';
import { useApiClient } from '../../api/use-api-client.ts';
import { useIntegrations } from '../../platform/integrations.ts';
import { usePlatform } from '../../platform/platform-context.ts';

/** Wait before reconnecting after a failure: 1 s, doubling up to 30 s. */
export function reconnectDelayMs(failures: number): number {
  return Math.min(30_000, 1_000 * 2 ** Math.max(0, failures - 1));
}

export interface StreamHandlers {
  /** Any message: a new notification (given) or a resync (null): time to reload the list. */
  onMessage(notification: Schemas['Notification'] | null): void;
  /**
   * One of the user's instances changed status (`event: instance`), or null when such changes may
   * have been missed (a resync, or a reconnect: instance events are not replayed).
   */
  onInstance?(event: InstanceStreamEvent | null): void;
  /** A new usage point of one of the user's instances (`event: usage`, every 15 s while it runs). */
  onUsage?(event: UsageStreamEvent): void;
}

function parseNotification(data: unknown): Schemas['Notification'] | null {
  if (typeof data !== 'string') return null;
  try {
    const value = JSON.parse(data) as Partial<Schemas['Notification']> | null;
    return value && typeof value.title === 'string' && typeof value.message === 'string'
      ? (value as Schemas['Notification'])
      : null;
  } catch {
    return null;
  }
}

function parseInstanceEvent(data: unknown): InstanceStreamEvent | null {
  if (typeof data !== 'string') return null;
  try {
    const value = JSON.parse(data) as Partial<InstanceStreamEvent> | null;
    return value && typeof value.id === 'string' && typeof value.status === 'string'
      ? {
          id: value.id,
          status: value.status,
          statusMessage: value.statusMessage ?? null,
          ...(value.backup && typeof value.backup.id === 'string' ? { backup: value.backup } : {}),
        }
      : null;
  } catch {
    return null;
  }
}

function parseUsageEvent(data: unknown): UsageStreamEvent | null {
  if (typeof data !== 'string') return null;
  try {
    const value = JSON.parse(data) as Partial<UsageStreamEvent> | null;
    return value && typeof value.instanceId === 'string' && typeof value.point?.at === 'string'
      ? { instanceId: value.instanceId, point: value.point }
      : null;
  } catch {
    return null;
  }
}

/**
 * The live notification stream (Server-Sent Events). An EventSource cannot send the bearer token, so
 * each connection first asks for a short-lived stream token. On any error the connection is closed
 * and reopened with a fresh token, after a growing pause; the last event id is passed on so that the
 * server replays what was missed. Failures are silent.
 */
export function useNotificationStream({ onMessage, onInstance, onUsage }: StreamHandlers): void {
  const client = useApiClient();
  const { apiBaseUrl } = usePlatform();
  const { openEventSource } = useIntegrations();
  const handler = useRef(onMessage);
  handler.current = onMessage;
  const instanceHandler = useRef(onInstance);
  instanceHandler.current = onInstance;
  const usageHandler = useRef(onUsage);
  usageHandler.current = onUsage;

  useEffect(() => {
    let stopped = false;
    let source: ReturnType<typeof openEventSource> | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let lastEventId: string | undefined;
    let opens = 0;

    const retry = () => {
      source?.close();
      source = null;
      if (stopped) return;
      failures += 1;
      clearTimeout(timer);
      timer = setTimeout(() => void connect(), reconnectDelayMs(failures));
    };

    async function connect() {
      let token: string;
      try {
        ({ token } = await unwrap(client.POST('/api/notifications/stream-token')));
      } catch {
        retry();
        return;
      }
      if (stopped) return;
      const query = new URLSearchParams({ token });
      if (lastEventId) query.set('lastEventId', lastEventId);
      const opened = openEventSource(`${apiBaseUrl}/api/notifications/stream?${query}`);
      source = opened;
      opened.addEventListener('open', () => {
        failures = 0;
        opens += 1;
        if (opens > 1) instanceHandler.current?.(null);
      });
      opened.addEventListener('notification', (event) => {
        if (event.lastEventId) lastEventId = event.lastEventId;
        handler.current(parseNotification(event.data));
      });
      opened.addEventListener('instance', (event) => {
        const change = parseInstanceEvent(event.data);
        if (change) instanceHandler.current?.(change);
      });
      opened.addEventListener('usage', (event) => {
        const usage = parseUsageEvent(event.data);
        if (usage) usageHandler.current?.(usage);
      });
      opened.addEventListener('resync', () => {
        handler.current(null);
        instanceHandler.current?.(null);
      });
      opened.addEventListener('error', () => {
        if (source === opened) retry();
      });
    }

    void connect();
    return () => {
      stopped = true;
      clearTimeout(timer);
      source?.close();
    };
  }, [client, apiBaseUrl, openEventSource]);
}
