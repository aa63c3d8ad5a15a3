import {
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  MenuItem,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { errorMessage } from '../../api/api-error.ts';
import {
  useDeployInstanceMutation,
  useInstanceCapabilitiesQuery,
  useRegionsQuery,
} from '../../api/instances.queries.ts';
import { useCanCreateInstanceQuery } from '../../api/subscriptions.queries.ts';
import { useForm } from '../../components/form/use-form.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { CannotCreateAlert } from '../instances/cannot-create-alert.tsx';
import {
  CANNOT_CREATE,
  DASHBOARD_REGIONS,
  DEFAULT_INSTANCE_NAME,
  DEFAULT_REGION,
  QUICK_DEPLOY_RESOURCES,
  quickDeployChoice,
  type RegionId,
  regionLabel,
  regionNotes,
  regionOffered,
} from '../instances/instance-catalog.ts';
import { type QuickDeployValues, validateQuickDeploy } from '../instances/instance-validation.ts';
import { useOfferedRegion } from '../instances/use-offered-region.ts';

const INITIAL: QuickDeployValues = { name: DEFAULT_INSTANCE_NAME, region: DEFAULT_REGION };

type Deploy = ReturnType<typeof useDeployInstanceMutation>;

function DeployForm({ deploy, onDone }: { deploy: Deploy; onDone(): void }) {
  const toast = useToast();
  const capabilities = useInstanceCapabilitiesQuery();
  const regions = useRegionsQuery();
  const canCreate = useCanCreateInstanceQuery();
  const form = useForm(INITIAL, validateQuickDeploy);
  useOfferedRegion(regions.data, form.values.region, (region) => form.setValue('region', region));
  const choice = quickDeployChoice(capabilities.data);
  const capability = capabilities.data?.find((entry) => entry.type === choice?.type);
  const blocked = canCreate.data?.canCreate === false;

  const submit = form.handleSubmit((values) => {
    if (!capability) return;
    if (blocked) {
      toast.error(CANNOT_CREATE);
      return;
    }
    deploy.mutate(
      {
        name: values.name.trim(),
        region: values.region as RegionId,
        type: capability.name,
        ...QUICK_DEPLOY_RESOURCES,
      },
      {
        onSuccess: ({ message }) => {
          toast.success(message || 'Instance deployment initiated');
          onDone();
        },
        onError: (error) => toast.error(errorMessage(error, 'Failed to deploy instance')),
      },
    );
  });

  return (
    <Box component="form" noValidate onSubmit={submit}>
      <DialogContent sx={{ pt: 0 }}>
        <DialogContentText sx={{ mb: 2.5 }}>
          {choice
            ? `Quick deploy creates a ${choice.name} database (4 GB memory, 2 vCPU). Its connection details appear on the dashboard once it runs.`
            : capabilities.isPending
              ? 'Checking what this server can deploy...'
              : 'No database can be deployed on this server right now.'}
        </DialogContentText>
        {blocked && <CannotCreateAlert reason={canCreate.data?.reason} spacing={2.5} />}
        <Stack spacing={2.5}>
          <TextField {...form.field('name')} label="Instance Name" required />
          <TextField
            select
            label="Region"
            value={form.values.region}
            onChange={(event) => form.setValue('region', event.target.value)}
          >
            {DASHBOARD_REGIONS.map((region) => (
              <MenuItem key={region} value={region} disabled={!regionOffered(regions.data, region)}>
                {regionLabel(region)} ({region})
              </MenuItem>
            ))}
          </TextField>
          {regionNotes(regions.data).map((note) => (
            <Typography key={note} variant="body2" color="text.secondary">
              {note}
            </Typography>
          ))}
        </Stack>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2.5 }}>
        <Button color="inherit" onClick={onDone} disabled={deploy.isPending}>
          Cancel
        </Button>
        <Button type="submit" variant="contained" loading={deploy.isPending} disabled={blocked || !choice}>
          Deploy
        </Button>
      </DialogActions>
    </Box>
  );
}

/**
 * The dashboard's deploy modal: name ('My Instance'), one of six regions, and the first
 * database type the server can deploy (MySQL first), with the quick-deploy resources (4GB, 2 CPU).
 * Deploy is disabled while the plan allows no more instances.
 */
export function DeployModal({ open, onClose }: { open: boolean; onClose(): void }) {
  const deploy = useDeployInstanceMutation();
  return (
    <Dialog
      open={open}
      onClose={() => !deploy.isPending && onClose()}
      fullWidth
      maxWidth="xs"
      aria-labelledby="deploy-modal-title"
    >
      <DialogTitle id="deploy-modal-title">Deploy Instance</DialogTitle>
      <DeployForm deploy={deploy} onDone={onClose} />
    </Dialog>
  );
}
