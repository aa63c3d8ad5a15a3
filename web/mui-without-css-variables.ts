import type { Plugin } from 'vite';

/**
 * Leaves MUI's CSS-variables theming out of the web build (about 7 KB gzip of the first load of /).
 *
 * `createTheme` and `ThemeProvider` of @mui/material import both theme flavours and pick one at run time:
 * the CSS-variables one (`createThemeWithVars`, `CssVarsProvider`) only for themes made with
 * `cssVariables: true` or `colorSchemes`. Berth's theme (ui/src/theme/theme.ts) is a plain theme per
 * mode, so that code never runs; bundlers keep it because the choice is made at run time. This plugin
 * gives those two internal modules a stand-in that throws a clear error if a CSS-variables theme ever
 * appears. `ui/src/theme/theme.test.ts` fails first in that case: remove this plugin then.
 */
const STAND_INS: Record<string, string> = {
  './createThemeWithVars.mjs': 'export default function createThemeWithVars() { fail(); }',
  './ThemeProviderWithVars.mjs': [
    'export const CssVarsProvider = fail;',
    'export const Experimental_CssVarsProvider = fail;',
    'export const useColorScheme = fail;',
    'export const getInitColorSchemeScript = fail;',
  ].join('\n'),
};

const FAIL = `function fail() {
  throw new Error('MUI CSS-variables themes are left out of this build (web/mui-without-css-variables.ts)');
}`;

const PREFIX = '\0berth-mui-without-css-vars:';

export function muiWithoutCssVariables(): Plugin {
  return {
    name: 'berth:mui-without-css-variables',
    enforce: 'pre',
    resolveId(source, importer) {
      const inMuiStyles = importer?.replaceAll('\\', '/').includes('/@mui/material/styles/');
      return inMuiStyles && source in STAND_INS ? PREFIX + source : null;
    },
    load(id) {
      if (!id.startsWith(PREFIX)) return null;
      return `${FAIL}\n${STAND_INS[id.slice(PREFIX.length)]}`;
    },
  };
}
