import { Turnstile } from '@marsidev/react-turnstile';
import type { BotCheckWidgetProps } from '../../platform/integrations.ts';

/**
 * Cloudflare Turnstile (its script loads from Cloudflare when the widget first shows). Expired tokens
 * are not refreshed here: the form starts the widget over (BotCheckField).
 */
export function TurnstileWidget({ siteKey, theme, onToken, onExpire, onError }: BotCheckWidgetProps) {
  return (
    <Turnstile
      siteKey={siteKey}
      options={{ theme, size: 'flexible', refreshExpired: 'never' }}
      onSuccess={onToken}
      onExpire={onExpire}
      onError={onError}
    />
  );
}
