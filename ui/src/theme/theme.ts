import { alpha, createTheme, type Theme } from '@mui/material/styles';

export type ColorMode = 'light' | 'dark';

const BRAND = { main: '#4f7cff', light: '#7d9dff', dark: '#3457d5' } as const;
const ACCENT = { main: '#14b8a6', light: '#5eead4', dark: '#0f766e' } as const;

const SURFACES: Record<ColorMode, { default: string; paper: string; border: string }> = {
  dark: { default: '#0b1020', paper: '#121a30', border: 'rgba(148, 163, 196, 0.16)' },
  light: { default: '#f5f7fb', paper: '#ffffff', border: 'rgba(15, 23, 42, 0.10)' },
};

/** The Berth look in either mode: one palette, one radius, one spacing rhythm. */
export function createAppTheme(mode: ColorMode): Theme {
  const surface = SURFACES[mode];
  return createTheme({
    palette: {
      mode,
      primary: { ...BRAND, contrastText: '#ffffff' },
      secondary: { ...ACCENT, contrastText: '#ffffff' },
      background: { default: surface.default, paper: surface.paper },
      divider: surface.border,
      ...(mode === 'dark'
        ? { text: { primary: '#e6eaf5', secondary: '#9aa6c3' } }
        : { text: { primary: '#0f172a', secondary: '#52607a' } }),
    },
    shape: { borderRadius: 10 },
    typography: {
      fontFamily:
        '"Inter", system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
      h1: { fontWeight: 700 },
      h2: { fontWeight: 700 },
      h3: { fontWeight: 700 },
      h4: { fontWeight: 700, letterSpacing: '-0.01em' },
      h5: { fontWeight: 600 },
      h6: { fontWeight: 600 },
      button: { textTransform: 'none', fontWeight: 600 },
      overline: { fontWeight: 600, letterSpacing: '0.08em' },
    },
    components: {
      MuiCssBaseline: {
        styleOverrides: { body: { minHeight: '100vh' }, '#root': { minHeight: '100vh' } },
      },
      MuiAppBar: {
        defaultProps: { elevation: 0, color: 'inherit' },
        styleOverrides: {
          root: {
            backgroundColor: alpha(surface.paper, 0.85),
            backdropFilter: 'blur(8px)',
            borderBottom: `1px solid ${surface.border}`,
          },
        },
      },
      MuiButton: { defaultProps: { disableElevation: true } },
      MuiCard: {
        defaultProps: { variant: 'outlined' },
        styleOverrides: { root: { borderColor: surface.border, backgroundImage: 'none' } },
      },
      MuiPaper: { styleOverrides: { root: { backgroundImage: 'none' } } },
      MuiPopover: {
        styleOverrides: { paper: { border: `1px solid ${surface.border}` } },
      },
      MuiTextField: { defaultProps: { fullWidth: true } },
      MuiChip: { styleOverrides: { root: { fontWeight: 600 } } },
      MuiAlert: { styleOverrides: { root: { alignItems: 'center' } } },
    },
  });
}
