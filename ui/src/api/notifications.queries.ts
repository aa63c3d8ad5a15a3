import type { Schemas } from '@berth/openapi';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from './api-error.ts';
import { notificationKeys } from './query-keys.ts';
import { useApiClient } from './use-api-client.ts';

export type Notification = Schemas['Notification'];
export type NotificationList = Schemas['NotificationList'];

/** The bell refreshes every 60 s (and on each live-stream message). */
export const NOTIFICATION_POLL_MS = 60_000;

/** The bell's list. Errors are silently ignored: the last good list stays. */
export function useNotificationsQuery() {
  const client = useApiClient();
  return useQuery({
    queryKey: notificationKeys.list(),
    queryFn: () => unwrap(client.GET('/api/notifications')),
    refetchInterval: NOTIFICATION_POLL_MS,
    retry: false,
    staleTime: 0,
  });
}

/**
 * A change to the list: applied to the cached list at once, sent, and followed by a fresh load
 * (also after a failure, which is otherwise ignored).
 */
function useNotificationChange<V>(
  send: (variables: V) => Promise<unknown>,
  apply: (list: NotificationList, variables: V) => NotificationList,
) {
  const queryClient = useQueryClient();
  return useMutation<unknown, Error, V>({
    mutationFn: send,
    onMutate: async (variables) => {
      await queryClient.cancelQueries({ queryKey: notificationKeys.list() });
      queryClient.setQueryData<NotificationList>(notificationKeys.list(), (list) =>
        list ? apply(list, variables) : list,
      );
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: notificationKeys.list() }),
  });
}

export function useMarkAllReadMutation() {
  const client = useApiClient();
  return useNotificationChange<void>(
    () => unwrap(client.POST('/api/notifications/mark-read', { body: { all: true } })),
    (list) => ({ items: list.items.map((item) => ({ ...item, read: true })), unread: 0 }),
  );
}

export function useMarkReadMutation() {
  const client = useApiClient();
  return useNotificationChange<string>(
    (id) => unwrap(client.POST('/api/notifications/mark-read', { body: { ids: [id] } })),
    (list, id) => {
      const wasUnread = list.items.some((item) => item.id === id && !item.read);
      return {
        items: list.items.map((item) => (item.id === id ? { ...item, read: true } : item)),
        unread: Math.max(0, list.unread - (wasUnread ? 1 : 0)),
      };
    },
  );
}

export function useDeleteNotificationMutation() {
  const client = useApiClient();
  return useNotificationChange<string>(
    (id) => unwrap(client.DELETE('/api/notifications/{id}', { params: { path: { id } } })),
    (list, id) => {
      const removed = list.items.find((item) => item.id === id);
      return {
        items: list.items.filter((item) => item.id !== id),
        unread: Math.max(0, list.unread - (removed && !removed.read ? 1 : 0)),
      };
    },
  );
}

export function useDeleteAllNotificationsMutation() {
  const client = useApiClient();
  return useNotificationChange<void>(
    () => unwrap(client.DELETE('/api/notifications')),
    () => ({ items: [], unread: 0 }),
  );
}
