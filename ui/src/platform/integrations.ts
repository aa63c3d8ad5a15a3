import { type ComponentType, createContext, useContext } from 'react';
import type { ColorMode } from '../theme/theme.ts';

/** The part of a browser EventSource the live notification stream uses. */
export interface LiveEventSource {
  addEventListener(type: string, listener: (event: MessageEvent) => void): void;
  close(): void;
}

type OpenEventSource = (url: string) => LiveEventSource;

export interface BotCheckWidgetProps {
  siteKey: string;
  theme: ColorMode;
  /** A solved challenge: the token to send with the form (single use). */
  onToken(token: string): void;
  onExpire(): void;
  onError(): void;
}

export interface ApiReferenceViewerProps {
  theme: ColorMode;
  /** Where the requests of the examples go: this Berth server. */
  serverUrl: string;
}

/**
 * What the UI takes from outside the page it renders: the browser's EventSource, the bot-check
 * widget (Cloudflare Turnstile, whose script comes from Cloudflare) and the renderer of the public
 * OpenAPI document (Scalar, a large Vue bundle loaded by /api-reference only). Tests put fakes here.
 */
export interface Integrations {
  openEventSource: OpenEventSource;
  BotCheckWidget: ComponentType<BotCheckWidgetProps>;
  ApiReferenceViewer: ComponentType<ApiReferenceViewerProps>;
}

export const IntegrationsContext = createContext<Integrations | null>(null);

export function useIntegrations(): Integrations {
  const integrations = useContext(IntegrationsContext);
  if (!integrations) throw new Error('useIntegrations must be used inside App');
  return integrations;
}
