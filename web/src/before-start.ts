// What a visitor did on a prerendered page before the app took it over (its start script holds button
// clicks and form submits, and the browser keeps what was typed into fields), carried out once React
// has hydrated each element involved: as if the app had been there all along.

import type { BeforeStart } from './prerender-contract.ts';

type TextField = HTMLInputElement | HTMLTextAreaElement;

/** How long to wait for React to hydrate an element before giving up on carrying out an action. */
const HYDRATION_WAIT_MS = 15_000;

const isTextField = (target: EventTarget | null): target is TextField =>
  (target instanceof HTMLInputElement &&
    !/^(checkbox|radio|hidden|submit|reset|button|file|image|range|color)$/.test(target.type)) ||
  target instanceof HTMLTextAreaElement;

/** React marks each element it has hydrated with its props under a `__reactProps$…` key. */
const isHydrated = (element: Element) => Object.keys(element).some((key) => key.startsWith('__reactProps$'));

/** Resolves true once React has hydrated `element`, false when it is gone or the wait ran out. */
function hydrated(element: Element): Promise<boolean> {
  const until = performance.now() + HYDRATION_WAIT_MS;
  return new Promise((resolve) => {
    const check = () => {
      if (!element.isConnected || performance.now() > until) resolve(false);
      else if (isHydrated(element)) resolve(true);
      else requestAnimationFrame(check);
    };
    check();
  });
}

/**
 * Hands a value typed before hydration to React, whose state still has the page's value (the field's
 * defaultValue): setting that through React's own setter, `typed` through the browser's, and firing
 * `input` makes React see a change and run onChange.
 */
function reportTyped(field: TextField, typed: string): void {
  field.value = field.defaultValue;
  const prototype =
    field instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(prototype, 'value')?.set?.call(field, typed);
  field.dispatchEvent(new Event('input', { bubbles: true }));
}

/**
 * From now on: what was typed into the page's fields before React hydrated them is noted (React may
 * render a field again with its own state before the last one is hydrated) and handed to React once
 * every field is; the clicks and submits `held` collects (before the app started, on parts not
 * hydrated yet, or before the typing is handed over) are then carried out, in order, once their
 * element is hydrated.
 */
export function carryOutBeforeStart(root: Element, held: BeforeStart | undefined): void {
  const fields = Array.from(root.querySelectorAll('input, textarea')).filter(isTextField);
  const typed = new Map<TextField, string>();
  for (const field of fields) if (field.value !== field.defaultValue) typed.set(field, field.value);
  const onInput = (event: Event) => {
    if (isTextField(event.target) && !isHydrated(event.target)) typed.set(event.target, event.target.value);
  };
  document.addEventListener('input', onInput, true);

  // Until what was typed is in React's state, a click or submit would act on the fields as React
  // still has them (empty): it is held like one before the app started, and carried out after.
  let typedHandedOver = false;
  let queue = Promise.resolve();
  const after = (step: () => Promise<void>) => {
    queue = queue
      .then(step)
      .catch((error: unknown) => console.error('[berth] an early action failed:', error));
  };
  after(async () => {
    await Promise.all(fields.map(hydrated));
    document.removeEventListener('input', onInput, true);
    for (const [field, value] of typed)
      if (field.isConnected && value !== field.defaultValue) reportTyped(field, value);
    typedHandedOver = true;
  });
  if (!held) return;
  const drain = () => {
    for (let element = held.clicked.shift(); element; element = held.clicked.shift()) {
      const clicked = element;
      after(async () => {
        if ((await hydrated(clicked)) && clicked instanceof HTMLElement) clicked.click();
      });
    }
    for (let form = held.submitted.shift(); form; form = held.submitted.shift()) {
      const submitted = form;
      after(async () => {
        if (await hydrated(submitted)) submitted.requestSubmit();
      });
    }
  };
  held.isLive = (element) => typedHandedOver && isHydrated(element);
  held.changed = drain;
  drain();
}
