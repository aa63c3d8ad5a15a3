import { ApiReference } from '@scalar/api-reference';
import { createHead } from '@unhead/vue/server';
import { createSSRApp, h, reactive } from 'vue';
import { renderToString } from 'vue/server-renderer';
import type { ColorMode } from '../../theme/theme.ts';
import {
  SCALAR_ID_PREFIX,
  SCALAR_MOUNT_ATTRIBUTE,
  SCALAR_STATIC_ATTRIBUTE,
  scalarConfiguration,
} from './scalar-configuration.ts';

export { SCALAR_MOUNT_ATTRIBUTE };

/**
 * Scalar's markup of the public API reference, rendered where there is no browser (the web build writes
 * it into the /api-reference page: web/prerender.ts), so the page shows the reference, styled, before
 * any script runs. The app is set up as Scalar's createApiReference sets it up in the browser, with the
 * same configuration: the drawing that replaces it there (scalar-reference.tsx) looks the same. Takes a
 * second or two: done once, at build time.
 */
export async function renderScalarMarkup(theme: ColorMode): Promise<string> {
  // The first section open, the others listed (a third of the markup of all open, so the first paint
  // is quick on a slow phone); Scalar opens them all when it takes over.
  const props = reactive({ configuration: scalarConfiguration(theme, '', false) });
  const app = createSSRApp(() => h(ApiReference, props));
  app.use(createHead());
  app.config.idPrefix = SCALAR_ID_PREFIX;
  return `<div ${SCALAR_STATIC_ATTRIBUTE}>${withoutScriptGaps(await renderToString(app))}</div>`;
}

/**
 * What Scalar's scripts give its markup in the browser and its server render lacks: a name for the
 * copy buttons of the code examples (their "Copy" label sits in a hidden span until hovered), and
 * `tabindex="-1"` on the invisible focus guards of its tabs, which keyboard users would otherwise land on.
 */
function withoutScriptGaps(html: string): string {
  return html
    .replaceAll(
      '<button type="button" class="group/copy-button',
      '<button type="button" aria-label="Copy" class="group/copy-button',
    )
    .replaceAll(
      '<button aria-hidden="true" style="position:fixed;',
      '<button aria-hidden="true" tabindex="-1" style="position:fixed;',
    );
}
