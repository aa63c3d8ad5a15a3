import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';

// Screens load lazily; on a busy 2-core machine (CI runs every project at once) a lazy chunk can take
// more than testing-library's default second to arrive. What the tests wait for still has to appear.
configure({ asyncUtilTimeout: 5_000 });

// No UI test reaches the network. A request no fake answers (fakeApi is installed per test and removed
// after it, so this includes a late request of a finished test) fails at once, as a browser's fetch does
// offline, instead of going to http://localhost:3000 (the page's URL here), where a developer's own
// server may be listening.
const offline = (input: RequestInfo | URL): Promise<Response> =>
  Promise.reject(
    new TypeError(`Failed to fetch ${String(input)}: UI tests have no network (answer it with fakeApi)`),
  );
globalThis.fetch = offline as typeof fetch;

afterEach(() => {
  cleanup();
  localStorage.clear();
  vi.unstubAllGlobals();
});
