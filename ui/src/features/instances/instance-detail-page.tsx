import AdminPanelSettingsIcon from '@mui/icons-material/AdminPanelSettings';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import DnsIcon from '@mui/icons-material/Dns';
import LockResetIcon from '@mui/icons-material/LockReset';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import VisibilityIcon from '@mui/icons-material/Visibility';
import {
  Alert,
  Box,
  Button,
  CircularProgress,
  Container,
  Grid,
  Stack,
  Tab,
  Tabs,
  Typography,
} from '@mui/material';
import { useEffect, useState } from 'react';
import { Link as RouterLink, useNavigate, useParams, useSearchParams } from 'react-router';
import { ApiRequestError } from '../../api/api-error.ts';
import { type Instance, useInstanceAccessQuery, useInstanceQuery } from '../../api/instances.queries.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { formatDateTime } from '../subscription/standing.ts';
import { useCurrentSubscription } from '../subscription/use-current-subscription.ts';
import { BackupsCard } from './backups-tab.tsx';
import { CustomDomainCard, SslCertificateCard } from './domain-cards.tsx';
import { isDeployed, OpenExternalButton, WithReason } from './instance-actions.tsx';
import { StatusChip, SuspendedBadge, TypeBadge } from './instance-badges.tsx';
import {
  DELETE_DISABLED,
  hasBackups,
  isDatabase,
  PASSWORD_CHANGE_DISABLED,
  regionLabel,
} from './instance-catalog.ts';
import { Rows, SettingsCard, SideCard, Tile } from './instance-detail-cards.tsx';
import { InstanceDialogs, useInstanceDialogs } from './instance-dialogs.tsx';
import { OutOfMemoryNotice, UsageTab, useAppliedLimits } from './usage-tab.tsx';
import { WordPressCard } from './wordpress-panels.tsx';

function BackButton() {
  return (
    <Button component={RouterLink} to="/instances" startIcon={<ArrowBackIcon />} sx={{ mb: 2, ml: -1 }}>
      Back to Instances
    </Button>
  );
}

const TABS = [
  { value: 'overview', label: 'Overview' },
  { value: 'usage', label: 'Usage' },
] as const;
type TabValue = (typeof TABS)[number]['value'];

/**
 * The Configuration card: region, memory and vCPU, then what applies to the instance in words
 * (its own, enforced limits; or, on a shared database server, which ones bound it and which not).
 */
function ConfigurationCard({ instance }: { instance: Instance }) {
  const { memory, cpu } = instance.deploymentConfig;
  const limits = useAppliedLimits(instance);
  const shared = limits.some((limit) => !limit.enforced);
  return (
    <SideCard id="configuration" title="Configuration">
      <Rows
        rows={[
          ['Region', `${regionLabel(instance.region)} (${instance.region})`],
          ['Memory', memory],
          ['vCPU', cpu],
        ]}
      />
      {limits.length > 0 && (
        <Box sx={{ mt: 2 }}>
          <Typography variant="subtitle2" component="h3">
            {shared ? 'Limits on a shared server' : 'Limits'}
          </Typography>
          {shared && (
            <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
              This database runs on a server shared with other databases. The limits marked "Enforced" are its
              own; the others are shared or can be changed by a session.
            </Typography>
          )}
          <Rows
            rows={limits.map((limit) => [
              limit.label,
              shared ? `${limit.value}${limit.enforced ? ' (Enforced)' : ''}` : limit.value,
            ])}
          />
        </Box>
      )}
    </SideCard>
  );
}

function InstanceView({ instance }: { instance: Instance }) {
  const [params, setParams] = useSearchParams();
  const tab: TabValue = params.get('tab') === 'usage' ? 'usage' : 'overview';
  const { inactive } = useCurrentSubscription();
  const dialogs = useInstanceDialogs();
  const database = isDatabase(instance);
  const deployed = isDeployed(instance);
  const access = useInstanceAccessQuery(instance.id, database && deployed);
  const credentials = access.data?.database;
  const deleting = instance.status === 'deleting';
  const { memory, cpu } = instance.deploymentConfig;
  const [editingDomain, setEditingDomain] = useState(false);

  const manageDomain = () => {
    setEditingDomain(true);
    if (tab !== 'overview') setParams({}, { replace: true });
    // After the Overview tab (and its domain card) is drawn.
    setTimeout(() =>
      document.getElementById('custom-domain')?.scrollIntoView?.({ behavior: 'smooth', block: 'center' }),
    );
  };

  const connection = database
    ? {
        label: 'Connection',
        value: credentials ? `${credentials.host}:${credentials.port}` : 'Database Instance',
        caption: `${instance.type} database`,
      }
    : { label: 'URL', value: instance.url ?? 'Not available', caption: undefined };

  return (
    <>
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
          {instance.type === 'n8n' && instance.ownerEmail && (
            <Typography color="text.secondary" sx={{ mt: 0.75 }}>
              Editor login: {instance.ownerEmail}
              {instance.adminUrl ? ` · ${instance.adminUrl}` : ''}
            </Typography>
          )}
        </Box>
        <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap', flexShrink: 0 }}>
          {instance.url && (
            <OpenExternalButton
              url={instance.url}
              inactive={inactive}
              icon={<OpenInNewIcon />}
              label="Open Instance"
              variant="contained"
            />
          )}
          {instance.type === 'WordPress' && instance.adminUrl && (
            <OpenExternalButton
              url={instance.adminUrl}
              inactive={inactive}
              icon={<AdminPanelSettingsIcon />}
              label="Admin"
              variant="outlined"
            />
          )}
          {instance.type === 'n8n' && instance.adminUrl && (
            <OpenExternalButton
              url={instance.adminUrl}
              inactive={inactive}
              icon={<AdminPanelSettingsIcon />}
              label="Open Editor"
              variant="outlined"
            />
          )}
          {!database && (
            <Button variant="outlined" startIcon={<DnsIcon />} disabled={deleting} onClick={manageDomain}>
              Manage Domain
            </Button>
          )}
          {database && (
            <Button
              variant="contained"
              startIcon={<VisibilityIcon />}
              disabled={deleting}
              onClick={() => dialogs.open('credentials', instance)}
            >
              View Credentials
            </Button>
          )}
          {database && (
            <WithReason
              reason={
                inactive
                  ? PASSWORD_CHANGE_DISABLED
                  : deployed
                    ? null
                    : 'Available once the instance is running'
              }
            >
              <Button
                variant="outlined"
                startIcon={<LockResetIcon />}
                disabled={inactive || !deployed}
                onClick={() => dialogs.open('password', instance)}
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
              onClick={() => dialogs.open('delete', instance)}
            >
              Delete Instance
            </Button>
          </WithReason>
        </Stack>
      </Stack>

      {instance.status === 'error' && (
        <Alert severity="error" sx={{ mb: 3 }}>
          {instance.statusMessage || 'This instance failed.'}
        </Alert>
      )}
      {instance.status === 'deploying' && (
        <Alert severity="info" icon={<CircularProgress size={18} aria-hidden />} sx={{ mb: 3 }}>
          Deploying… This page updates by itself when the instance is ready.
        </Alert>
      )}
      {deleting && (
        <Alert severity="warning" sx={{ mb: 3 }}>
          This instance is being deleted.
        </Alert>
      )}
      <OutOfMemoryNotice instance={instance} />

      <Grid container spacing={2} sx={{ mb: 3 }}>
        <Grid size={{ xs: 12, sm: 6, md: 3 }}>
          <Tile {...connection} />
        </Grid>
        <Grid size={{ xs: 12, sm: 6, md: 3 }}>
          <Tile label="Region" value={regionLabel(instance.region)} caption={instance.region} />
        </Grid>
        <Grid size={{ xs: 6, md: 3 }}>
          <Tile label="Memory" value={memory} />
        </Grid>
        <Grid size={{ xs: 6, md: 3 }}>
          <Tile label="CPU" value={`${cpu} vCPU`} />
        </Grid>
      </Grid>

      <Tabs
        value={tab}
        onChange={(_event, value: TabValue) =>
          setParams(value === 'overview' ? {} : { tab: value }, { replace: true })
        }
        aria-label="Instance sections"
        sx={{ mb: 3, borderBottom: 1, borderColor: 'divider' }}
      >
        {TABS.map(({ value, label }) => (
          <Tab
            key={value}
            value={value}
            label={label}
            id={`instance-tab-${value}`}
            aria-controls={`instance-panel-${value}`}
          />
        ))}
      </Tabs>
      <Box role="tabpanel" id={`instance-panel-${tab}`} aria-labelledby={`instance-tab-${tab}`}>
        {tab === 'usage' ? (
          <UsageTab instance={instance} />
        ) : (
          <Overview
            instance={instance}
            inactive={inactive}
            editingDomain={editingDomain}
            setEditingDomain={setEditingDomain}
          />
        )}
      </Box>

      <InstanceDialogs dialogs={dialogs} inactive={inactive} />
    </>
  );
}

/** The Overview tab: WordPress, settings, domain and certificate, information and configuration. */
function Overview({
  instance,
  inactive,
  editingDomain,
  setEditingDomain,
}: {
  instance: Instance;
  inactive: boolean;
  editingDomain: boolean;
  setEditingDomain(editing: boolean): void;
}) {
  const database = isDatabase(instance);
  return (
    <Grid container spacing={3}>
      <Grid size={{ xs: 12, md: 7 }}>
        <Stack spacing={3}>
          {instance.type === 'WordPress' && <WordPressCard instance={instance} inactive={inactive} />}
          {instance.type !== 'WordPress' && hasBackups(instance.type) && (
            <BackupsCard instance={instance} inactive={inactive} />
          )}
          <SettingsCard key={instance.id} instance={instance} />
        </Stack>
      </Grid>
      <Grid size={{ xs: 12, md: 5 }}>
        <Stack spacing={3}>
          {!database && (
            <CustomDomainCard
              instance={instance}
              inactive={inactive}
              editing={editingDomain}
              onEditingChange={setEditingDomain}
            />
          )}
          {!database && <SslCertificateCard instance={instance} inactive={inactive} />}
          <SideCard id="instance-information" title="Instance Information">
            <Rows
              rows={[
                ['Status', <StatusChip key="status" status={instance.status} />],
                ['URL', instance.url ?? (database ? 'None (database)' : 'Not available')],
                ['Created', formatDateTime(new Date(instance.createdAt))],
                ['Last updated', formatDateTime(new Date(instance.updatedAt))],
              ]}
            />
          </SideCard>
          <ConfigurationCard instance={instance} />
        </Stack>
      </Grid>
    </Grid>
  );
}

/**
 * Instance detail, /instances/{id}: header, tiles, buttons,
 * settings, information and configuration. 'Instance not found' for a missing one; any other load
 * failure toasts and goes back to /instances. The status follows the live stream.
 */
export function InstanceDetailPage() {
  const { id = '' } = useParams();
  const query = useInstanceQuery(id);
  const toast = useToast();
  const navigate = useNavigate();
  const notFound = query.error instanceof ApiRequestError && query.error.status === 404;
  const failed = query.isError && !notFound && query.data === undefined;

  useEffect(() => {
    if (!failed) return;
    toast.error('Failed to load instance details');
    navigate('/instances', { replace: true });
  }, [failed, toast, navigate]);

  return (
    <Container maxWidth="lg" sx={{ py: { xs: 3, sm: 5 } }}>
      <BackButton />
      {notFound ? (
        <Box sx={{ textAlign: 'center', py: 6 }}>
          <Typography variant="h4" component="h1" gutterBottom>
            Instance not found
          </Typography>
          <Typography color="text.secondary">It may have been deleted, or the link is wrong.</Typography>
        </Box>
      ) : query.data ? (
        <InstanceView instance={query.data} />
      ) : (
        <Stack role="status" spacing={2} sx={{ alignItems: 'center', py: 8 }}>
          <CircularProgress aria-hidden />
          <Typography color="text.secondary">Loading instance...</Typography>
        </Stack>
      )}
    </Container>
  );
}
