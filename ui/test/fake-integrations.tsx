import { act } from '@testing-library/react';
import type {
  ApiReferenceViewerProps,
  BotCheckWidgetProps,
  LiveEventSource,
} from '../src/platform/integrations.ts';

type Listener = (event: MessageEvent) => void;

/**
 * A stand-in for the browser's EventSource: the test emits the server's events. Exported for the
 * declarations of the types that name it (its private members cannot be written inline).
 * @public
 */
export class FakeEventSource implements LiveEventSource {
  readonly url: URL;
  closed = false;
  private readonly listeners = new Map<string, Set<Listener>>();

  constructor(url: string) {
    this.url = new URL(url, 'http://localhost');
  }

  addEventListener(type: string, listener: Listener) {
    const set = this.listeners.get(type) ?? new Set<Listener>();
    set.add(listener);
    this.listeners.set(type, set);
  }

  close() {
    this.closed = true;
  }

  /** Delivers an event as the server would send it (`event:`, `data:`, `id:`). */
  emit(type: string, data = '', lastEventId = '') {
    const event = new MessageEvent(type, { data, lastEventId });
    act(() => {
      for (const listener of this.listeners.get(type) ?? []) listener(event);
    });
  }
}

/** Every stream the app opened, in order. */
export function fakeStreams() {
  const opened: FakeEventSource[] = [];
  return {
    opened,
    open: (url: string) => {
      const source = new FakeEventSource(url);
      opened.push(source);
      return source;
    },
    latest: () => opened.at(-1),
  };
}

export type FakeStreams = ReturnType<typeof fakeStreams>;

let solved = 0;

/** The bot-check widget without Cloudflare: buttons that solve it or let it expire. */
export function FakeBotCheckWidget({ siteKey, onToken, onExpire, onError }: BotCheckWidgetProps) {
  return (
    <div data-testid="bot-check-widget" data-site-key={siteKey}>
      <button type="button" onClick={() => onToken(`bot-token-${++solved}`)}>
        Solve bot check
      </button>
      <button type="button" onClick={onExpire}>
        Expire bot check
      </button>
      <button type="button" onClick={onError}>
        Fail bot check
      </button>
    </div>
  );
}

/** The API reference viewer without Scalar's bundle: its props, for the page test. */
export function FakeApiReferenceViewer({ theme, serverUrl }: ApiReferenceViewerProps) {
  return <div data-testid="api-reference-viewer" data-theme={theme} data-server-url={serverUrl} />;
}
