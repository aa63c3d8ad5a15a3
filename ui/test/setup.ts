import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';

// Screens load lazily; on a busy 2-core machine (CI runs every project at once) a lazy chunk can take
// more than testing-library's default second to arrive. What the tests wait for still has to appear.
configure({ asyncUtilTimeout: 5_000 });

afterEach(() => {
  cleanup();
  localStorage.clear();
  vi.unstubAllGlobals();
});
