import type { Schemas, User } from '@berth/openapi';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { usePlatform } from '../platform/platform-context.ts';
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

/**
 * A password change ends every session of the user, this one included: the answer's new pair replaces
 * the stored tokens before anything else is sent.
 */
export function useChangePasswordMutation() {
  const client = useApiClient();
  const { tokenStore } = usePlatform();
  return useMutation<Schemas['ChangePasswordResult'], Error, Schemas['ChangePasswordRequest']>({
    mutationFn: async (body) => {
      const result = await unwrap(client.PUT('/api/auth/change-password', { body }));
      await tokenStore.set(result.token, result.refreshToken);
      return result;
    },
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
