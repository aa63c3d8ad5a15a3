import type { Schemas } from '@berth/openapi';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from './api-error.ts';
import { helpKeys, type TicketListParams } from './query-keys.ts';
import { useApiClient } from './use-api-client.ts';

export type Ticket = Schemas['Ticket'];
export type TicketPage = Schemas['TicketPage'];
export type HelpAttachment = Schemas['HelpAttachment'];
export type SubmitTicketRequest = Schemas['SubmitTicketRequest'];
export type AnswerTicketRequest = Schemas['AnswerTicketRequest'];
export type TicketStatus = Ticket['status'];
export type SendNotificationRequest = Schemas['SendNotificationRequest'];
export type UserSummary = Schemas['UserSummary'];

/** GET /api/help/my: the signed-in user's tickets, newest first. */
export function useMyTicketsQuery() {
  const client = useApiClient();
  return useQuery({
    queryKey: helpKeys.mine(),
    queryFn: () => unwrap(client.GET('/api/help/my')),
  });
}

/** POST /api/help/upload: one image per call; answers its `{ url, name }`. */
export function useUploadHelpImageMutation() {
  const client = useApiClient();
  return useMutation<HelpAttachment, Error, File>({
    mutationFn: async (file) =>
      (
        await unwrap(
          client.POST('/api/help/upload', {
            // openapi-typescript types a binary field as string; the serializer sends the File itself.
            body: { file } as unknown as { file: string },
            bodySerializer: () => {
              const form = new FormData();
              form.append('file', file);
              return form;
            },
          }),
        )
      ).file,
  });
}

/** DELETE /api/help/upload/{file}: an attachment removed before sending. Failures are ignored (the sweep). */
export function useRemoveHelpUploadMutation() {
  const client = useApiClient();
  return useMutation<unknown, Error, HelpAttachment>({
    mutationFn: (attachment) =>
      unwrap(
        client.DELETE('/api/help/upload/{file}', {
          params: { path: { file: attachment.url.split('/').pop() ?? '' } },
        }),
      ),
  });
}

export function useSubmitTicketMutation() {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<Schemas['TicketResult'], Error, SubmitTicketRequest>({
    mutationFn: (body) => unwrap(client.POST('/api/help/submit', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: helpKeys.mine() }),
  });
}

export function useDeleteTicketMutation() {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<unknown, Error, string>({
    mutationFn: (id) => unwrap(client.DELETE('/api/help/{id}', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: helpKeys.mine() }),
  });
}

/**
 * An uploaded image as an object URL: the file route needs the bearer token, which an <img> cannot
 * send, so it is fetched through the API client (token and refresh included) and shown from memory.
 */
export function useHelpImageQuery(url: string) {
  const client = useApiClient();
  return useQuery({
    queryKey: helpKeys.image(url),
    queryFn: async () => {
      const file = url.split('/').pop() ?? '';
      const { data, response } = await client.GET('/api/uploads/help/{file}', {
        params: { path: { file } },
        parseAs: 'blob',
      });
      if (!response.ok || !(data instanceof Blob)) throw new Error('Image not available');
      return data;
    },
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
}

/** GET /api/help/all (admin): one page of tickets, filtered. */
export function useAllTicketsQuery(params: TicketListParams) {
  const client = useApiClient();
  return useQuery({
    queryKey: helpKeys.allList(params),
    queryFn: () =>
      unwrap(
        client.GET('/api/help/all', {
          params: {
            query: {
              page: String(params.page),
              limit: String(params.limit),
              ...(params.q.trim() ? { q: params.q.trim() } : {}),
              ...(params.status ? { status: params.status } : {}),
              ...(params.category ? { category: params.category } : {}),
              ...(params.sort === 'newest' ? { sort: params.sort } : {}),
            },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

export function useSetTicketStatusMutation() {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<Schemas['TicketResult'], Error, { id: string; status: TicketStatus }>({
    mutationFn: ({ id, status }) =>
      unwrap(client.PUT('/api/help/{id}/status', { params: { path: { id } }, body: { status } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: helpKeys.allTickets() }),
  });
}

export function useAnswerTicketMutation() {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<Schemas['TicketResult'], Error, { id: string } & AnswerTicketRequest>({
    mutationFn: ({ id, ...body }) =>
      unwrap(client.POST('/api/help/{id}/answer', { params: { path: { id } }, body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: helpKeys.allTickets() }),
  });
}

/** GET /api/notifications/config: whether the server sends real e-mail (`smtpEnabled`). */
export function useNotificationsConfigQuery() {
  const client = useApiClient();
  return useQuery({
    queryKey: helpKeys.notificationsConfig(),
    queryFn: () => unwrap(client.GET('/api/notifications/config')),
    staleTime: 5 * 60_000,
  });
}

/** POST /api/notifications/send (admin): answers how many users it goes to. */
export function useSendNotificationMutation() {
  const client = useApiClient();
  return useMutation<Schemas['SendNotificationResult'], Error, SendNotificationRequest>({
    mutationFn: (body) => unwrap(client.POST('/api/notifications/send', { body })),
  });
}

/** GET /api/users?page=1&limit=100 (admin): names and e-mails for picking one user. */
export function useUserSummariesQuery(search: string, enabled: boolean) {
  const client = useApiClient();
  return useQuery({
    queryKey: helpKeys.users(search),
    queryFn: () =>
      unwrap(
        client.GET('/api/users', {
          params: { query: { page: '1', limit: '100', ...(search ? { search } : {}) } },
        }),
      ),
    enabled,
    placeholderData: keepPreviousData,
  });
}
