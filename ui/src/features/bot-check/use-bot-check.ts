import { useCallback, useMemo, useState } from 'react';
import { usePublicConfigQuery } from '../../api/config.queries.ts';

export const BOT_CHECK_MISSING = 'Please complete the CAPTCHA verification';

export interface BotCheck {
  /** The widget's site key; null when the check is off (the server has no keys) or not known yet. */
  siteKey: string | null;
  token: string | null;
  /** Set when a submit was refused for want of a token. */
  missing: boolean;
  /** Changes whenever the widget must start over (expiry, error, after each submit). */
  generation: number;
  setToken(token: string | null): void;
  /**
   * Call on submit: true when the form may be sent. With the check on and no token it shows
   * 'Please complete the CAPTCHA verification' and answers false.
   */
  ready(): boolean;
  /** The field to send: `{ turnstileToken }` once solved, else nothing. */
  payload(): { turnstileToken?: string };
  /** A token is single use: start over after every answer of the server, and on expiry or error. */
  reset(): void;
}

/** State of the bot check (Cloudflare Turnstile) of one form; render it with <BotCheckField>. */
export function useBotCheck(): BotCheck {
  const config = usePublicConfigQuery();
  const siteKey = config.data?.turnstileSiteKey ?? null;
  const [token, setTokenState] = useState<string | null>(null);
  const [missing, setMissing] = useState(false);
  const [generation, setGeneration] = useState(0);

  const setToken = useCallback((value: string | null) => {
    setTokenState(value);
    if (value) setMissing(false);
  }, []);

  const reset = useCallback(() => {
    setTokenState(null);
    setGeneration((current) => current + 1);
  }, []);

  return useMemo<BotCheck>(
    () => ({
      siteKey,
      token,
      missing,
      generation,
      setToken,
      reset,
      ready: () => {
        if (siteKey === null || token !== null) return true;
        setMissing(true);
        return false;
      },
      payload: () => (siteKey !== null && token ? { turnstileToken: token } : {}),
    }),
    [siteKey, token, missing, generation, setToken, reset],
  );
}
