import { useCallback, useEffect, useState } from 'react';
import type { ApiKeyInfo } from '../../api/api-keys.queries.ts';
import { usePlatform } from '../../platform/platform-context.ts';

export interface KeptApiKey {
  /** Whether this host keeps keys (desktop: the OS keychain); on the web a key is shown once. */
  keeps: boolean;
  /** The user's current key as the host keeps it, once read; null when it keeps none (or another key). */
  key: string | null;
  /** Keeps a key just made (replacing any other). Rejects when the host could not store it. */
  keep(key: string): Promise<void>;
  /** Forgets the kept key (deleted or replaced on the server). */
  forget(): Promise<void>;
}

/** Whether `key` is the one the server lists (its prefix and last four characters). */
const isCurrent = (key: string, current: ApiKeyInfo) =>
  key.startsWith(current.prefix) && key.endsWith(current.last4);

/**
 * The user's API key where the host keeps it (the desktop app's OS keychain, through the Platform):
 * read when the page opens and shown from there, when it is the key the server lists. A key made here
 * is kept at once; deleting or regenerating it here takes it out of the keychain.
 */
export function useKeptApiKey(userId: string, current: ApiKeyInfo | undefined, listed: boolean): KeptApiKey {
  const { secrets } = usePlatform();
  const [key, setKey] = useState<string | null>(null);

  useEffect(() => {
    if (!secrets || !listed) return;
    let live = true;
    void secrets
      .get('apiKey', userId)
      .then((stored) => {
        // Only the key the server lists now: one regenerated elsewhere since is not shown.
        if (live && stored !== null && current && isCurrent(stored, current)) setKey(stored);
      })
      .catch(() => {
        // An unreadable keychain shows the key as on the web: masked, regenerate for a new one.
      });
    return () => {
      live = false;
    };
  }, [secrets, userId, current, listed]);

  const keep = useCallback(
    async (value: string) => {
      setKey(value);
      if (!secrets) return;
      await secrets.delete('apiKey', userId);
      await secrets.set('apiKey', userId, value);
    },
    [secrets, userId],
  );
  const forget = useCallback(async () => {
    setKey(null);
    await secrets?.delete('apiKey', userId);
  }, [secrets, userId]);

  return { keeps: secrets !== null, key: secrets ? key : null, keep, forget };
}
