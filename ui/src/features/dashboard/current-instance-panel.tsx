import AddIcon from '@mui/icons-material/Add';
import BoltIcon from '@mui/icons-material/Bolt';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import SettingsIcon from '@mui/icons-material/Settings';
import {
  Box,
  Button,
  type ButtonProps,
  Card,
  CardContent,
  Chip,
  CircularProgress,
  Divider,
  Stack,
  Typography,
} from '@mui/material';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import {
  DASHBOARD_PAGE_SIZE,
  type Instance,
  useInstanceAccessQuery,
  useInstancesQuery,
} from '../../api/instances.queries.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { CredentialField } from '../instances/credential-field.tsx';
import { hostOf, SslBadge } from '../instances/domain-status.tsx';
import { isDeployed } from '../instances/instance-actions.tsx';
import { StatusChip, SuspendedBadge, TypeBadge } from '../instances/instance-badges.tsx';
import {
  DEFAULT_INSTANCE_NAME,
  DOMAIN_ADD_DISABLED,
  defaultPort,
  isDatabase,
  regionLabel,
  VERIFICATION_LABELS,
  verificationColor,
} from '../instances/instance-catalog.ts';
import { unavailableReason } from '../instances/instance-features.tsx';
import { UsageSparklineRow } from '../instances/usage-tab.tsx';
import { OpenExternalButton, WithReason } from '../instances/with-reason.tsx';

// The domain form (its field and validation) loads when a user opens it.
const DomainForm = lazy(async () => ({
  default: (await import('../instances/domain-management.tsx')).DomainForm,
}));

/** Connection Details of a database: each 'Not available' until the credentials exist. */
function ConnectionDetails({ instance }: { instance: Instance }) {
  const toast = useToast();
  const deployed = isDeployed(instance);
  const access = useInstanceAccessQuery(instance.id, deployed);
  const database = access.data?.database;
  // A database answers on its engine's default port unless the credentials name another.
  const port = database ? database.port || defaultPort(instance.type) : undefined;

  const failed = access.isError;
  useEffect(() => {
    if (failed) toast.error('Failed to load database credentials');
  }, [failed, toast]);

  return (
    <Box component="section" aria-labelledby="connection-details-title" sx={{ mt: 2.5 }}>
      <Typography id="connection-details-title" variant="subtitle1" component="h3" sx={{ fontWeight: 700 }}>
        Connection Details
      </Typography>
      {!deployed && instance.status === 'deploying' && (
        <Typography variant="body2" color="text.secondary">
          They appear here as soon as the database runs.
        </Typography>
      )}
      <Box component="dl" sx={{ m: 0, mt: 1 }}>
        <CredentialField label="Host" value={database?.host} />
        <CredentialField label="Port" value={port ? String(port) : null} />
        <CredentialField label="Database" value={database?.name} />
        <CredentialField label="Username" value={database?.user} />
        <CredentialField label="Password" value={database?.password} secret />
      </Box>
    </Box>
  );
}

/**
 * Domain Management of a site: the SSL badge, the current domain (a 'Custom' tag for a
 * custom one) and 'Add Custom Domain' / 'Update Custom Domain', which opens the Add Custom Domain form.
 */
function DomainManagement({ instance, inactive }: { instance: Instance; inactive: boolean }) {
  const [adding, setAdding] = useState(false);
  const custom = instance.customDomain;
  const current = custom?.domain ?? (hostOf(instance.url) || null);
  const unavailable = inactive
    ? DOMAIN_ADD_DISABLED
    : (unavailableReason(instance, 'domains') ??
      (isDeployed(instance) ? null : 'Available once the instance is running'));
  return (
    <Box component="section" aria-labelledby="domain-management-title" sx={{ mt: 2.5 }}>
      <Stack direction="row" sx={{ alignItems: 'center', gap: 1, mb: 1 }}>
        <Typography
          id="domain-management-title"
          variant="subtitle1"
          component="h3"
          sx={{ fontWeight: 700, mr: 'auto' }}
        >
          Domain Management
        </Typography>
        <SslBadge instance={instance} />
      </Stack>
      <Stack direction="row" sx={{ alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
        <Typography sx={{ fontWeight: 600, wordBreak: 'break-all' }}>{current ?? 'No domain yet'}</Typography>
        {custom && <Chip label="Custom" size="small" color="primary" variant="outlined" />}
        {custom && custom.verification.status !== 'attached' && (
          <Chip
            label={VERIFICATION_LABELS[custom.verification.status]}
            size="small"
            color={verificationColor(custom.verification.status)}
            variant="outlined"
          />
        )}
        {!adding && (
          <WithReason reason={unavailable}>
            <Button
              size="small"
              disabled={unavailable !== null}
              onClick={() => setAdding(true)}
              sx={{ ml: 'auto' }}
            >
              {custom ? 'Update Custom Domain' : 'Add Custom Domain'}
            </Button>
          </WithReason>
        )}
      </Stack>
      {adding && (
        <Box sx={{ mt: 1.5 }}>
          <Suspense fallback={<CircularProgress size={24} aria-label="Loading the domain form" />}>
            <DomainForm instance={instance} onDone={() => setAdding(false)} disabled={inactive} />
          </Suspense>
        </Box>
      )}
    </Box>
  );
}

function Fact({ label, value }: { label: string; value: string }) {
  return (
    <Box>
      <Typography variant="caption" color="text.secondary" component="dt">
        {label}
      </Typography>
      <Typography component="dd" sx={{ m: 0, fontWeight: 600 }}>
        {value}
      </Typography>
    </Box>
  );
}

/** Props of the Quick Deploy button besides its click (the dashboard preloads the form with them). */
export type DeployButtonProps = Pick<ButtonProps, 'onPointerEnter' | 'onFocus'>;

function NoInstance({
  onDeploy,
  deployButtonProps,
}: {
  onDeploy(): void;
  deployButtonProps?: DeployButtonProps;
}) {
  return (
    <Box sx={{ textAlign: 'center', py: 3 }}>
      <Typography variant="h6" component="p">
        No instances yet
      </Typography>
      <Typography color="text.secondary" sx={{ mt: 0.5, mb: 2.5 }}>
        Deploy a database in seconds; its connection details show up here.
      </Typography>
      <Stack direction="row" sx={{ justifyContent: 'center', gap: 1.5, flexWrap: 'wrap' }}>
        <Button variant="contained" startIcon={<BoltIcon />} onClick={onDeploy} {...deployButtonProps}>
          Quick Deploy
        </Button>
        <Button component={RouterLink} to="/instances/new" variant="outlined" startIcon={<AddIcon />}>
          Deploy New Instance
        </Button>
      </Stack>
    </Box>
  );
}

/**
 * Current Instance: the user's first instance with its status, type, region and URL;
 * Open (with a URL), Manage (not for databases) and View All; databases show their connection details.
 */
export function CurrentInstancePanel({
  inactive,
  onDeploy,
  deployButtonProps,
}: {
  inactive: boolean;
  onDeploy(): void;
  deployButtonProps?: DeployButtonProps;
}) {
  const toast = useToast();
  const query = useInstancesQuery({ page: 1, limit: DASHBOARD_PAGE_SIZE, search: '' });
  const instance = query.data?.instances[0];

  const failed = query.isError;
  useEffect(() => {
    if (failed) toast.error('Failed to load instances');
  }, [failed, toast]);

  return (
    <Card component="section" aria-labelledby="current-instance-title" sx={{ height: '100%' }}>
      <CardContent sx={{ p: 3, '&:last-child': { pb: 3 } }}>
        <Typography id="current-instance-title" variant="overline" color="text.secondary" component="h2">
          Current Instance
        </Typography>
        {query.isPending ? (
          <Stack role="status" sx={{ alignItems: 'center', py: 4 }}>
            <CircularProgress aria-label="Loading instances" />
          </Stack>
        ) : !instance ? (
          <NoInstance onDeploy={onDeploy} deployButtonProps={deployButtonProps} />
        ) : (
          <>
            <Stack direction="row" sx={{ alignItems: 'center', gap: 1.25, flexWrap: 'wrap', mb: 2 }}>
              <Typography variant="h5" component="p" sx={{ mr: 0.5, wordBreak: 'break-word' }}>
                {instance.name || DEFAULT_INSTANCE_NAME}
              </Typography>
              <StatusChip status={instance.status} />
              <TypeBadge instance={instance} />
              <SuspendedBadge instance={instance} inactive={inactive} />
            </Stack>
            <Stack component="dl" direction="row" sx={{ m: 0, gap: 4, flexWrap: 'wrap', rowGap: 1.5 }}>
              <Fact label="Type" value={instance.type} />
              <Fact label="Region" value={regionLabel(instance.region)} />
              {instance.url && <Fact label="URL" value={instance.url} />}
            </Stack>
            <UsageSparklineRow instance={instance} />
            {isDatabase(instance) ? (
              <ConnectionDetails instance={instance} />
            ) : (
              <DomainManagement instance={instance} inactive={inactive} />
            )}
            <Divider sx={{ my: 2.5 }} />
            <Stack direction="row" sx={{ gap: 1.5, flexWrap: 'wrap' }}>
              {instance.url && (
                <OpenExternalButton
                  url={instance.url}
                  inactive={inactive}
                  icon={<OpenInNewIcon />}
                  label="Open"
                  variant="contained"
                />
              )}
              {!isDatabase(instance) && (
                <Button
                  component={RouterLink}
                  to={`/instances/${instance.id}`}
                  variant="outlined"
                  startIcon={<SettingsIcon />}
                >
                  Manage
                </Button>
              )}
              <Button component={RouterLink} to="/instances" variant="outlined">
                View All
              </Button>
            </Stack>
          </>
        )}
      </CardContent>
    </Card>
  );
}
