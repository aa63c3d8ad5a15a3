import type { Schemas, User } from '@berth/openapi';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from './api-error.ts';
import { authKeys } from './query-keys.ts';
import { useApiClient } from './use-api-client.ts';

/** The session's user is the profile query: answers that carry the user replace it at once. */
function useReplaceUser() {
  const queryClient = useQueryClient();
  return ({ user }: { user: User }) => queryClient.setQueryData(authKeys.profile(), user);
}

export function useUpdateProfileMutation() {
  const client = useApiClient();
  const replaceUser = useReplaceUser();
  return useMutation<Schemas['UserResult'], Error, Schemas['UpdateProfileRequest']>({
    mutationFn: (body) => unwrap(client.PUT('/api/auth/profile', { body })),
    onSuccess: replaceUser,
  });
}

export function useChangePasswordMutation() {
  const client = useApiClient();
  return useMutation<Schemas['Message'], Error, Schemas['ChangePasswordRequest']>({
    mutationFn: (body) => unwrap(client.PUT('/api/auth/change-password', { body })),
  });
}

export function useUploadAvatarMutation() {
  const client = useApiClient();
  const replaceUser = useReplaceUser();
  return useMutation<Schemas['UserResult'], Error, File>({
    mutationFn: (file) =>
      unwrap(
        client.POST('/api/auth/avatar', {
          // openapi-typescript types a binary field as string; the serializer sends the File itself.
          body: { avatar: file } as unknown as Schemas['AvatarUpload'],
          bodySerializer: () => {
            const form = new FormData();
            form.append('avatar', file);
            return form;
          },
        }),
      ),
    onSuccess: replaceUser,
  });
}

export function useRemoveAvatarMutation() {
  const client = useApiClient();
  const replaceUser = useReplaceUser();
  return useMutation<Schemas['UserResult'], Error, void>({
    mutationFn: () => unwrap(client.DELETE('/api/auth/avatar')),
    onSuccess: replaceUser,
  });
}
