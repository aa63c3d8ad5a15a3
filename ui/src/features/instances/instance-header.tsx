import AdminPanelSettingsIcon from '@mui/icons-material/AdminPanelSettings';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import DnsIcon from '@mui/icons-material/Dns';
import LockResetIcon from '@mui/icons-material/LockReset';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import VisibilityIcon from '@mui/icons-material/Visibility';
import { Box, Button, Stack, Typography } from '@mui/material';
import type { Instance } from '../../api/instances.queries.ts';
import { isDeployed } from './instance-actions.tsx';
import { StatusChip, SuspendedBadge, TypeBadge } from './instance-badges.tsx';
import { DELETE_DISABLED, entryNamed, isDatabase } from './instance-catalog.ts';
import type { InstanceDialogKind } from './instance-dialogs.tsx';
import { passwordChangeBlocked, unavailableReason } from './instance-features.tsx';
import { InstanceLinks, OpenExternalButton, WithReason } from './with-reason.tsx';

/**
 * The head of the instance detail page: name, badges, description (and n8n's editor login), then its
 * buttons: open, admin or editor (phpMyAdmin for a MySQL instance that has one), Manage Domain or the
 * credentials and password, Delete Instance. A feature this server does not offer keeps its button,
 * disabled, with the reason as its tooltip.
 */
export function InstanceHeader({
  instance,
  inactive,
  phpmyadmin,
  onManageDomain,
  onOpenDialog,
}: {
  instance: Instance;
  inactive: boolean;
  /** A MySQL instance's phpMyAdmin (from its credentials), when it has one. */
  phpmyadmin?: string | null;
  onManageDomain(): void;
  onOpenDialog(kind: InstanceDialogKind, instance: Instance): void;
}) {
  const database = isDatabase(instance);
  // n8n: deployed with an owner account, whose login and editor the header shows.
  const ownerAccount = entryNamed(instance.type)?.deployFields === 'n8nOwner';
  const deployed = isDeployed(instance);
  const deleting = instance.status === 'deleting';
  const noDomains = unavailableReason(instance, 'domains');
  const noDatabaseAdmin = unavailableReason(instance, 'databaseAdmin');
  const passwordBlocked = passwordChangeBlocked(instance, inactive, deployed);
  return (
    <Stack
      direction={{ xs: 'column', md: 'row' }}
      sx={{ justifyContent: 'space-between', alignItems: { md: 'flex-start' }, gap: 2, mb: 3 }}
    >
      <Box sx={{ minWidth: 0 }}>
        <Stack direction="row" sx={{ alignItems: 'center', gap: 1.5, flexWrap: 'wrap' }}>
          <Typography variant="h4" component="h1" sx={{ wordBreak: 'break-word' }}>
            {instance.name}
          </Typography>
          <StatusChip status={instance.status} />
          <TypeBadge instance={instance} />
          <SuspendedBadge instance={instance} inactive={inactive} />
        </Stack>
        {instance.description && (
          <Typography color="text.secondary" sx={{ mt: 0.75 }}>
            {instance.description}
          </Typography>
        )}
        {ownerAccount && instance.ownerEmail && (
          <Typography color="text.secondary" sx={{ mt: 0.75 }}>
            Editor login: {instance.ownerEmail}
            {instance.adminUrl ? ` · ${instance.adminUrl}` : ''}
          </Typography>
        )}
      </Box>
      <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap', flexShrink: 0 }}>
        <InstanceLinks instance={instance} inactive={inactive} openLabel="Open Instance" />
        {ownerAccount && instance.adminUrl && (
          <OpenExternalButton
            url={instance.adminUrl}
            inactive={inactive}
            icon={<AdminPanelSettingsIcon />}
            label="Open Editor"
            variant="outlined"
          />
        )}
        {database && phpmyadmin && (
          <OpenExternalButton
            url={phpmyadmin}
            inactive={inactive}
            icon={<OpenInNewIcon />}
            label="phpMyAdmin"
            variant="outlined"
          />
        )}
        {database && noDatabaseAdmin && (
          <WithReason reason={noDatabaseAdmin}>
            <Button variant="outlined" startIcon={<OpenInNewIcon />} disabled>
              phpMyAdmin
            </Button>
          </WithReason>
        )}
        {!database && (
          <WithReason reason={noDomains}>
            <Button
              variant="outlined"
              startIcon={<DnsIcon />}
              disabled={deleting || noDomains !== null}
              onClick={onManageDomain}
            >
              Manage Domain
            </Button>
          </WithReason>
        )}
        {database && (
          <Button
            variant="contained"
            startIcon={<VisibilityIcon />}
            disabled={deleting}
            onClick={() => onOpenDialog('credentials', instance)}
          >
            View Credentials
          </Button>
        )}
        {database && (
          <WithReason reason={passwordBlocked}>
            <Button
              variant="outlined"
              startIcon={<LockResetIcon />}
              disabled={passwordBlocked !== null}
              onClick={() => onOpenDialog('password', instance)}
            >
              Change Password
            </Button>
          </WithReason>
        )}
        <WithReason reason={inactive ? DELETE_DISABLED : null}>
          <Button
            variant="outlined"
            color="error"
            startIcon={<DeleteOutlineIcon />}
            disabled={inactive || deleting}
            onClick={() => onOpenDialog('delete', instance)}
          >
            Delete Instance
          </Button>
        </WithReason>
      </Stack>
    </Stack>
  );
}
