import AdminPanelSettingsIcon from '@mui/icons-material/AdminPanelSettings';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import LockResetIcon from '@mui/icons-material/LockReset';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import SettingsIcon from '@mui/icons-material/Settings';
import VisibilityIcon from '@mui/icons-material/Visibility';
import { Box, Button, type ButtonProps, IconButton, Tooltip } from '@mui/material';
import type { ReactElement, ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import type { Instance } from '../../api/instances.queries.ts';
import { usePlatform } from '../../platform/platform-context.ts';
import { DELETE_DISABLED, isDatabase, LINKS_DISABLED } from './instance-catalog.ts';
import type { InstanceDialogKind } from './instance-dialogs.tsx';
import { passwordChangeBlocked } from './instance-features.tsx';

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

/** Whether the instance has been deployed and is not on its way out: credentials exist. */
export const isDeployed = (instance: Instance) =>
  instance.status === 'running' || instance.status === 'suspended';

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
 * The buttons of an instance card: Change Password and the credentials (eye) button for
 * databases, Manage for the others; Open when it has a URL, Admin for WordPress; Delete. An inactive
 * subscription disables Change Password, Open, Admin and Delete.
 */
export function InstanceActions({
  instance,
  inactive,
  onOpenDialog,
}: {
  instance: Instance;
  inactive: boolean;
  onOpenDialog(kind: InstanceDialogKind, instance: Instance): void;
}) {
  const _platform = usePlatform();
  const database = isDatabase(instance);
  const deleting = instance.status === 'deleting';
  const name = instance.name;
  const passwordBlocked = passwordChangeBlocked(instance, inactive, isDeployed(instance));

  return (
    <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 1 }}>
      {database ? (
        <WithReason reason={passwordBlocked}>
          <Button
            size="small"
            variant="outlined"
            startIcon={<LockResetIcon />}
            disabled={passwordBlocked !== null}
            onClick={() => onOpenDialog('password', instance)}
            aria-label={`Change password of ${name}`}
          >
            Change Password
          </Button>
        </WithReason>
      ) : (
        <Button
          size="small"
          variant="outlined"
          startIcon={<SettingsIcon />}
          component={RouterLink}
          to={`/instances/${instance.id}`}
          aria-label={`Manage ${name}`}
        >
          Manage
        </Button>
      )}
      {database && (
        <Tooltip title="Credentials">
          <span>
            <IconButton
              size="small"
              aria-label={`Credentials of ${name}`}
              disabled={deleting}
              onClick={() => onOpenDialog('credentials', instance)}
            >
              <VisibilityIcon fontSize="small" />
            </IconButton>
          </span>
        </Tooltip>
      )}
      {instance.url && (
        <OpenExternalButton
          url={instance.url}
          inactive={inactive}
          icon={<OpenInNewIcon />}
          label="Open"
          size="small"
          aria-label={`Open ${name}`}
        />
      )}
      {instance.type === 'WordPress' && instance.adminUrl && (
        <OpenExternalButton
          url={instance.adminUrl}
          inactive={inactive}
          icon={<AdminPanelSettingsIcon />}
          label="Admin"
          size="small"
          aria-label={`Admin of ${name}`}
        />
      )}
      <Box sx={{ ml: 'auto' }}>
        <WithReason reason={inactive ? DELETE_DISABLED : null}>
          <Button
            size="small"
            color="error"
            startIcon={<DeleteOutlineIcon />}
            disabled={inactive || deleting}
            onClick={() => onOpenDialog('delete', instance)}
            aria-label={`Delete ${name}`}
          >
            Delete
          </Button>
        </WithReason>
      </Box>
    </Box>
  );
}
