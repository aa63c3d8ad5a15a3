import { CssBaseline, ThemeProvider } from '@mui/material';
import { createContext, type ReactNode, useCallback, useEffect, useMemo, useState } from 'react';
import { type ColorMode, createAppTheme } from './theme.ts';

/** localStorage key of the chosen mode. */
export const THEME_STORAGE_KEY = 'theme';

export interface ColorModeContextValue {
  mode: ColorMode;
  toggle(): void;
}

export const ColorModeContext = createContext<ColorModeContextValue | null>(null);

function readStoredMode(): ColorMode {
  try {
    return localStorage.getItem(THEME_STORAGE_KEY) === 'light' ? 'light' : 'dark';
  } catch {
    return 'dark';
  }
}

/** MUI theme + CssBaseline; dark unless the user chose light; the choice is stored on every change. */
export function ColorModeProvider({ children }: { children: ReactNode }) {
  const [mode, setMode] = useState<ColorMode>(readStoredMode);
  const theme = useMemo(() => createAppTheme(mode), [mode]);
  const toggle = useCallback(() => setMode((current) => (current === 'dark' ? 'light' : 'dark')), []);
  const value = useMemo(() => ({ mode, toggle }), [mode, toggle]);

  useEffect(() => {
    try {
      localStorage.setItem(THEME_STORAGE_KEY, mode);
    } catch {
      // Storage can be unavailable (private mode); the choice then lasts for this visit only.
    }
  }, [mode]);

  // Keep the browser chrome (mobile address bar) in the page's colour when the host page declares one.
  const background = theme.palette.background.default;
  useEffect(() => {
    document.querySelector('meta[name="theme-color"]')?.setAttribute('content', background);
  }, [background]);

  return (
    <ColorModeContext.Provider value={value}>
      <ThemeProvider theme={theme}>
        <CssBaseline enableColorScheme />
        {children}
      </ThemeProvider>
    </ColorModeContext.Provider>
  );
}
