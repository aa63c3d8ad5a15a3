import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import LockResetIcon from '@mui/icons-material/LockReset';
import SettingsIcon from '@mui/icons-material/Settings';
import VisibilityIcon from '@mui/icons-material/Visibility';
import { Box, Button, IconButton, Tooltip } from '@mui/material';
import { Link as RouterLink } from 'react-router';
import type { Instance } from '../../api/instances.queries.ts';
import { usePlatform } from '../../platform/platform-context.ts';
import { DELETE_DISABLED, isDatabase } from './instance-catalog.ts';
import type { InstanceDialogKind } from './instance-dialogs.tsx';
import { passwordChangeBlocked } from './instance-features.tsx';
import { InstanceLinks, WithReason } from './with-reason.tsx';

/** Whether the instance has been deployed and is not on its way out: credentials exist. */
export const isDeployed = (instance: Instance) =>
  instance.status === 'running' || instance.status === 'suspended';

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
      <InstanceLinks instance={instance} inactive={inactive} openLabel="Open" compact />
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
