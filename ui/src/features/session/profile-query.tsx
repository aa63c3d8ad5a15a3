import type { User } from '@berth/openapi';
import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { unwrap } from '../../api/api-error.ts';
import { authKeys } from '../../api/query-keys.ts';
import { useApiClient } from '../../api/use-api-client.ts';

/** The state of the profile query (ProfileQuery reports it). */
export interface ProfileState {
  data: User | undefined;
  error: unknown;
  isError: boolean;
  isFetching: boolean;
  refetch(): Promise<unknown>;
}

/**
 * The signed-in user's profile query (GET /api/auth/profile). It renders nothing: SessionProvider
 * renders it while a token is stored and hears each change of its state through `onChange`.
 */
export function ProfileQuery({ onChange }: { onChange(state: ProfileState): void }) {
  const client = useApiClient();
  const { data, error, isError, isFetching, refetch } = useQuery({
    queryKey: authKeys.profile(),
    queryFn: async () => (await unwrap(client.GET('/api/auth/profile'))).user,
    retry: false,
    staleTime: 30_000,
  });
  useEffect(() => {
    onChange({ data, error, isError, isFetching, refetch });
  }, [onChange, data, error, isError, isFetching, refetch]);
  return null;
}
