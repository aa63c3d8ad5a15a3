import AdminPanelSettingsIcon from '@mui/icons-material/AdminPanelSettings';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import { Box, Button, type ButtonProps, Tooltip } from '@mui/material';
import type { ReactElement, ReactNode } from 'react';
import type { Instance } from '../../api/instances.queries.ts';
import { usePlatform } from '../../platform/platform-context.ts';
import { hasSiteAdmin, LINKS_DISABLED } from './instance-catalog.ts';

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

/**
 * An instance's own addresses as buttons: the instance itself and, for a WordPress site, its admin. In a
 * list row they are small and name the instance for screen readers; on its page they stand out.
 */
export function InstanceLinks({
  instance,
  inactive,
  openLabel,
  compact = false,
}: {
  instance: Pick<Instance, 'name' | 'type' | 'url' | 'adminUrl'>;
  inactive: boolean;
  openLabel: string;
  compact?: boolean;
}) {
  const look = (primary: boolean, label: string) =>
    compact
      ? { size: 'small' as const, 'aria-label': `${label} ${instance.name}` }
      : { variant: primary ? ('contained' as const) : ('outlined' as const) };
  return (
    <>
      {instance.url && (
        <OpenExternalButton
          url={instance.url}
          inactive={inactive}
          icon={<OpenInNewIcon />}
          label={openLabel}
          {...look(true, 'Open')}
        />
      )}
      {hasSiteAdmin(instance.type) && instance.adminUrl && (
        <OpenExternalButton
          url={instance.adminUrl}
          inactive={inactive}
          icon={<AdminPanelSettingsIcon />}
          label="Admin"
          {...look(false, 'Admin of')}
        />
      )}
    </>
  );
}
