import ArrowBackIcon from '@mui/icons-material/ArrowBack';
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
import { useCurrentSubscription } from '../subscription/use-current-subscription.ts';
import { isDeployed } from './instance-actions.tsx';
import { isDatabase, regionLabel } from './instance-catalog.ts';
import { Tile } from './instance-detail-cards.tsx';
import { InstanceDialogs, useInstanceDialogs } from './instance-dialogs.tsx';
import { InstanceHeader } from './instance-header.tsx';
import { Overview } from './instance-overview.tsx';
import { OutOfMemoryNotice, UsageTab } from './usage-tab.tsx';

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

/** One loaded instance: header, notices, tiles, then its Overview and Usage tabs. */
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
      <InstanceHeader
        instance={instance}
        inactive={inactive}
        phpmyadmin={credentials?.phpmyadmin}
        onManageDomain={manageDomain}
        onOpenDialog={dialogs.open}
      />

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
