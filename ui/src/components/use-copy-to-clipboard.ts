import { useCallback } from 'react';
import { useToast } from './toasts/use-toast.ts';

/**
 * Copies text with the browser's clipboard and says so in a toast:
 * '{label} copied to clipboard', or 'Failed to copy to clipboard' (no permission, insecure page).
 */
export function useCopyToClipboard(): (text: string, label: string) => Promise<void> {
  const toast = useToast();
  return useCallback(
    async (text: string, label: string) => {
      try {
        await navigator.clipboard.writeText(text);
        toast.success(`${label} copied to clipboard`);
      } catch {
        toast.error('Failed to copy to clipboard');
      }
    },
    [toast],
  );
}
