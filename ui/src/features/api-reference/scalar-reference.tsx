import { createApiReference } from '@scalar/api-reference';
// Scalar's styles as its bundler integrations take them: its theme layer declared first.
import '@scalar/api-reference-react/style.css';
import { useEffect, useRef } from 'react';
import type { ApiReferenceViewerProps } from '../../platform/integrations.ts';
import { SCALAR_MOUNT_ATTRIBUTE, scalarConfiguration } from './scalar-configuration.ts';

// Scalar is a Vue app: the flags its bundler build expects (as @scalar/api-reference-react sets them).
const flags = globalThis as Record<string, unknown>;
flags.__VUE_OPTIONS_API__ = true;
flags.__VUE_PROD_HYDRATION_MISMATCH_DETAILS__ = true;
flags.__VUE_PROD_DEVTOOLS__ = false;

/** In Scalar's markup once it shows the document: the title of its introduction. */
const DOCUMENT_SHOWN = 'h1.section-header-label';
/** The longest the server's markup stays when Scalar never shows the document (it failed). */
const TAKE_OVER_WITHIN_MS = 10_000;

/**
 * Draws Scalar into `host`. When `host` already holds Scalar's markup (the page's render), Scalar draws
 * beside it, out of sight, and its drawing replaces that markup once it shows the document: the page
 * never goes blank. (Scalar loads its document only once mounted, so it cannot hydrate the markup.)
 * Answers what stops the watch.
 */
function takeOver(host: HTMLDivElement): { target: HTMLDivElement; stop(): void } {
  const served = Array.from(host.childNodes);
  if (served.length === 0) return { target: host, stop: () => {} };
  const target = document.createElement('div');
  Object.assign(target.style, { position: 'absolute', inset: '0', visibility: 'hidden' });
  host.style.position = 'relative';
  host.append(target);
  const swap = () => {
    stop();
    for (const node of served) node.remove();
    target.removeAttribute('style');
    host.style.removeProperty('position');
  };
  const observer = new MutationObserver(() => {
    if (target.querySelector(DOCUMENT_SHOWN)) swap();
  });
  observer.observe(target, { childList: true, subtree: true });
  const timer = setTimeout(swap, TAKE_OVER_WITHIN_MS);
  function stop() {
    observer.disconnect();
    clearTimeout(timer);
  }
  return { target, stop };
}

/**
 * Scalar's renderer of the public OpenAPI document, its own chunk: only /api-reference loads it. On a
 * page the server rendered, the element already holds Scalar's markup (and the page its styles): it
 * stays until Scalar's own drawing replaces it. React leaves the element's inside to Scalar.
 */
export default function ScalarReference({ theme, serverUrl }: ApiReferenceViewerProps) {
  const element = useRef<HTMLDivElement>(null);
  const reference = useRef<{ instance: ReturnType<typeof createApiReference>; shows: string } | null>(null);
  const wanted = `${theme} ${serverUrl}`;

  // biome-ignore lint/correctness/useExhaustiveDependencies: created once; a change of theme or server is applied below
  useEffect(() => {
    if (!element.current) return;
    const { target, stop } = takeOver(element.current);
    const instance = createApiReference(target, scalarConfiguration(theme, serverUrl));
    reference.current = { instance, shows: wanted };
    return () => {
      stop();
      instance.destroy();
      reference.current = null;
    };
  }, []);
  useEffect(() => {
    const current = reference.current;
    if (!current || current.shows === wanted) return;
    current.instance.updateConfiguration(scalarConfiguration(theme, serverUrl));
    current.shows = wanted;
  }, [theme, serverUrl, wanted]);

  return (
    <div
      ref={element}
      {...{ [SCALAR_MOUNT_ATTRIBUTE]: '' }}
      className={`${theme}-mode`}
      // Never filled by React: Scalar's markup (the server's, then its own) lives here.
      // biome-ignore lint/security/noDangerouslySetInnerHtml: always empty; it only tells React to leave the inside alone when it hydrates
      dangerouslySetInnerHTML={{ __html: '' }}
      suppressHydrationWarning
    />
  );
}
