import { CaptchaError } from './errors.ts';

export const CLOUDFLARE_SITEVERIFY_URL = 'https://challenges.cloudflare.com/turnstile/v0/siteverify';

/**
 * The bot check of sign-in, registration, password-reset request and the contact form. When off (no keys
 * configured) every request passes; when on, a missing or failed token throws CaptchaError.
 */
export interface TurnstileVerifier {
  /** Public site key for the widget; null when the check is off. */
  readonly siteKey: string | null;
  verify(token: string | undefined, remoteIp?: string): Promise<void>;
}

export const turnstileOff: TurnstileVerifier = { siteKey: null, verify: async () => {} };

export interface TurnstileOptions {
  siteKey: string;
  secretKey: string;
  verifyUrl?: string;
  timeoutMs?: number;
}

/**
 * Verifies tokens with Cloudflare's siteverify (or a fake at `verifyUrl` in tests). Fails closed: a
 * timeout, a non-200 answer or a body that is not JSON refuses the request like a failed token.
 */
export function createTurnstileVerifier(options: TurnstileOptions): TurnstileVerifier {
  const { siteKey, secretKey, verifyUrl = CLOUDFLARE_SITEVERIFY_URL, timeoutMs = 5000 } = options;
  return {
    siteKey,
    async verify(token, remoteIp) {
      if (!token) throw new CaptchaError();
      const form = new URLSearchParams({ secret: secretKey, response: token });
      if (remoteIp && remoteIp !== 'local') form.set('remoteip', remoteIp);
      let outcome: { success?: unknown } | null;
      try {
        const res = await fetch(verifyUrl, {
          method: 'POST',
          body: form,
          signal: AbortSignal.timeout(timeoutMs),
        });
        if (res.status !== 200) throw new Error(`siteverify answered ${res.status}`);
        outcome = (await res.json()) as typeof outcome;
      } catch (err) {
        console.warn(
          `[turnstile] verification unavailable: ${err instanceof Error ? err.message : String(err)}`,
        );
        throw new CaptchaError();
      }
      if (outcome?.success !== true) throw new CaptchaError();
    },
  };
}
