import { describe, expect, it } from 'vitest';
import { createAppTheme } from './theme.ts';

describe('createAppTheme', () => {
  // The web build leaves MUI's CSS-variables theming out (web/mui-without-css-variables.ts); that holds
  // only while the theme is a plain one. Switching to `cssVariables` or `colorSchemes` needs that plugin
  // removed.
  it.each(['light', 'dark'] as const)(
    'makes a plain %s theme, without CSS variables or color schemes',
    (mode) => {
      const theme = createAppTheme(mode);
      expect(theme.palette.mode).toBe(mode);
      expect('colorSchemes' in theme).toBe(false);
      expect('vars' in theme && theme.vars).toBeFalsy();
    },
  );
});
