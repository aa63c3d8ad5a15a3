import { useContext } from 'react';
import { ColorModeContext, type ColorModeContextValue } from './color-mode-provider.tsx';

export function useColorMode(): ColorModeContextValue {
  const value = useContext(ColorModeContext);
  if (!value) throw new Error('useColorMode must be used inside ColorModeProvider');
  return value;
}
