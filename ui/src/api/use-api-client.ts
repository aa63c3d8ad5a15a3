import type { ApiClient } from '@berth/openapi';
import { useContext } from 'react';
import { ApiClientContext } from './api-client-provider.tsx';

export function useApiClient(): ApiClient {
  const client = useContext(ApiClientContext);
  if (!client) throw new Error('useApiClient must be used inside ApiClientProvider');
  return client;
}
