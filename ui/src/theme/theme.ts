import { alpha, createTheme, type Theme } from '@mui/material/styles';

export type ColorMode = 'light' | 'dark';

/**
 * Colours per mode, chosen for WCAG AA contrast (4.5:1) of text on the page and of button labels on
 * their fill: light mode uses deeper hues with white labels, dark mode lighter hues with dark labels.
 */
const INK = '#0b1020';

const SURFACES: Record<ColorMode, { default: string; paper: string; border: string }> = {
  dark: { default: INK, paper: '#121a30', border: 'rgba(148, 163, 196, 0.16)' },
  light: { default: '#f5f7fb', paper: '#ffffff', border: 'rgba(15, 23, 42, 0.10)' },
};

const PALETTES = {
  light: {
    primary: { main: '#3457d5', light: '#5b7cf0', dark: '#2743b0', contrastText: '#ffffff' },
    secondary: { main: '#0f766e', light: '#14b8a6', dark: '#115e59', contrastText: '#ffffff' },
    info: { main: '#0369a1', contrastText: '#ffffff' },
    warning: { main: '#b45309', contrastText: '#ffffff' },
    success: { main: '#2e7d32', contrastText: '#ffffff' },
    error: { main: '#c62828', contrastText: '#ffffff' },
    text: { primary: '#0f172a', secondary: '#4a5873' },
  },
  dark: {
    primary: { main: '#7d9dff', light: '#a5bbff', dark: '#4f7cff', contrastText: INK },
    secondary: { main: '#5eead4', light: '#99f6e4', dark: '#14b8a6', contrastText: INK },
    info: { main: '#38bdf8', contrastText: INK },
    warning: { main: '#fbbf24', contrastText: INK },
    success: { main: '#4ade80', contrastText: INK },
    error: { main: '#f87171', contrastText: INK },
    text: { primary: '#e6eaf5', secondary: '#a3aecb' },
  },
} as const;

/** The Berth look in either mode: one palette, one radius, one spacing rhythm. */
export function createAppTheme(mode: ColorMode): Theme {
  const surface = SURFACES[mode];
  return createTheme({
    palette: {
      mode,
      ...PALETTES[mode],
      background: { default: surface.default, paper: surface.paper },
      divider: surface.border,
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
      // MUI's default for unselected toggle buttons (action.active) falls just short of 4.5:1.
      MuiToggleButton: {
        styleOverrides: { root: ({ theme }) => ({ color: theme.palette.text.secondary }) },
      },
      MuiAlert: { styleOverrides: { root: { alignItems: 'center' } } },
    },
  });
}
