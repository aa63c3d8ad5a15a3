import { Box, Button, type ButtonProps, Tooltip } from '@mui/material';
import type { ReactElement, ReactNode } from 'react';
import { usePlatform } from '../../platform/platform-context.ts';
import { LINKS_DISABLED } from './instance-catalog.ts';

/** A control with the reason it is disabled as its tooltip (a disabled button gets no pointer events). */
export function WithReason({ reason, children }: { reason: string | null; children: ReactElement }) {
  if (!reason) return children;
  return (
    <Tooltip title={reason}>
      <Box component="span" sx={{ display: 'inline-flex' }}>
        {children}
      </Box>
    </Tooltip>
  );
}

/** Opens one of the instance's addresses outside the app; disabled, with the reason, while inactive. */
export function OpenExternalButton({
  url,
  inactive,
  icon,
  label,
  ...button
}: {
  url: string;
  inactive: boolean;
  icon: ReactNode;
  label: string;
} & Pick<ButtonProps, 'variant' | 'size' | 'aria-label'>) {
  const platform = usePlatform();
  return (
    <WithReason reason={inactive ? LINKS_DISABLED : null}>
      <Button {...button} startIcon={icon} disabled={inactive} onClick={() => platform.openExternal(url)}>
        {label}
      </Button>
    </WithReason>
  );
}
