import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import {
  type DatabaseCredentials,
  fetchInstanceAccess,
  usableCredentials,
} from '../../api/instances.queries.ts';
import { instanceKeys } from '../../api/query-keys.ts';
import { useApiClient } from '../../api/use-api-client.ts';

/** Up to 10 attempts, 2 s apart. */
export const CREDENTIAL_ATTEMPTS = 10;
export const CREDENTIAL_RETRY_MS = 2_000;

export const CREDENTIAL_TEXTS = {
  preparing: 'Preparing credentials... This may take a moment.',
  ready: 'Credentials retrieved',
  notReady: 'Credentials not ready yet. Please try again in a moment.',
  failed: 'Failed to fetch credentials. Please try again later.',
} as const;

/**
 * loading: the first answer is awaited; preparing: the server answered 202 and another attempt follows;
 * ready: usable credentials; not-ready: a 200 without them, or still 202 after the last attempt;
 * failed: any other answer or no answer (polling stops).
 */
export type CredentialsPhase = 'loading' | 'preparing' | 'ready' | 'not-ready' | 'failed';

export interface CredentialsState {
  phase: CredentialsPhase;
  credentials: DatabaseCredentials | null;
}

/**
 * Fetches a database instance's credentials, polling while the server prepares them. Runs
 * once per mount: remount (a new `key`) to try again. Ready credentials also fill the cache that the
 * dashboard's Connection Details read.
 */
export function useCredentialsPolling(instanceId: string): CredentialsState {
  const client = useApiClient();
  const queryClient = useQueryClient();
  const [state, setState] = useState<CredentialsState>({ phase: 'loading', credentials: null });

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;

    async function attempt(count: number) {
      try {
        const answer = await fetchInstanceAccess(client, instanceId);
        if (stopped) return;
        if (!answer.ready) {
          if (count >= CREDENTIAL_ATTEMPTS) {
            setState({ phase: 'not-ready', credentials: null });
            return;
          }
          setState({ phase: 'preparing', credentials: null });
          timer = setTimeout(() => void attempt(count + 1), CREDENTIAL_RETRY_MS);
          return;
        }
        const credentials = usableCredentials(answer.access);
        if (credentials) queryClient.setQueryData(instanceKeys.access(instanceId), answer.access);
        setState(credentials ? { phase: 'ready', credentials } : { phase: 'not-ready', credentials: null });
      } catch {
        if (!stopped) setState({ phase: 'failed', credentials: null });
      }
    }

    void attempt(1);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [client, queryClient, instanceId]);

  return state;
}
