import { type ComponentType, createContext, useContext } from 'react';
import type { ColorMode } from '../theme/theme.ts';

/** The part of a browser EventSource the live notification stream uses. */
export interface LiveEventSource {
  addEventListener(type: string, listener: (event: MessageEvent) => void): void;
  close(): void;
}

export type OpenEventSource = (url: string) => LiveEventSource;

export interface BotCheckWidgetProps {
  siteKey: string;
  theme: ColorMode;
  /** A solved challenge: the token to send with the form (single use). */
  onToken(token: string): void;
  onExpire(): void;
  onError(): void;
}

/**
 * What the UI takes from outside the page it renders: the browser's EventSource and the bot-check
 * widget (Cloudflare Turnstile, whose script comes from Cloudflare). Tests put fakes here.
 */
export interface Integrations {
  openEventSource: OpenEventSource;
  BotCheckWidget: ComponentType<BotCheckWidgetProps>;
}

export const IntegrationsContext = createContext<Integrations | null>(null);

export function useIntegrations(): Integrations {
  const integrations = useContext(IntegrationsContext);
  if (!integrations) throw new Error('useIntegrations must be used inside App');
  return integrations;
}
