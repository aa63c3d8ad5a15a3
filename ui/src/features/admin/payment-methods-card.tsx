import {
  Alert,
  Box,
  Card,
  CardContent,
  Chip,
  Divider,
  FormControlLabel,
  MenuItem,
  Stack,
  Switch,
  TextField,
  Typography,
} from '@mui/material';
import type { AdminPaymentSettings } from '../../api/admin.queries.ts';
import {
  type ChainId,
  METAMASK_SETTINGS_NOTICE,
  METHODS,
  type MethodInfo,
  type MethodStatus,
  methodStatus,
  NETWORKS,
} from './admin.ts';
import type { PaymentFormValues } from './payment-settings-values.ts';

const STATUS_CHIP: Record<MethodStatus, { label: string; color: 'success' | 'warning' | 'default' }> = {
  available: { label: 'Available', color: 'success' },
  needsKeys: { label: 'Needs keys', color: 'warning' },
  off: { label: 'Off', color: 'default' },
};

/** Why a method cannot be offered yet: the server settings it lacks (or, for MetaMask, the receiver). */
function needsText(method: MethodInfo): string {
  if (method.envVars.length === 0) return `Set a receiver address below to offer ${method.label}.`;
  const names = method.envVars.join(', ').replace(/, ([^,]*)$/, ' and $1');
  return `Set ${names} on the server to offer ${method.label}.`;
}

/** One payment method: its switch, what it is, what it still needs, and its status. */
function MethodRow({
  method,
  settings,
  checked,
  onChange,
}: {
  method: MethodInfo;
  settings: AdminPaymentSettings;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  const status = methodStatus(settings.methods[method.key]);
  const chip = STATUS_CHIP[status];
  const descriptionId = `payment-method-${method.key}-description`;
  return (
    <Stack
      direction={{ xs: 'column', sm: 'row' }}
      sx={{
        gap: { xs: 0.5, sm: 2 },
        alignItems: { sm: 'flex-start' },
        justifyContent: 'space-between',
        py: 1.5,
      }}
    >
      <Box sx={{ minWidth: 0 }}>
        <FormControlLabel
          control={
            <Switch
              checked={checked}
              onChange={(event) => onChange(event.target.checked)}
              slotProps={{ input: { 'aria-describedby': descriptionId } }}
            />
          }
          label={<Typography sx={{ fontWeight: 600 }}>{method.label}</Typography>}
        />
        <Box id={descriptionId} sx={{ pl: { xs: 0, sm: 6 } }}>
          <Typography variant="body2" color="text.secondary">
            {method.description}
          </Typography>
          {status === 'needsKeys' && (
            <Typography variant="body2" color="warning.main" sx={{ mt: 0.5 }}>
              {needsText(method)}
            </Typography>
          )}
        </Box>
      </Box>
      <Chip
        label={chip.label}
        color={chip.color}
        size="small"
        variant={status === 'off' ? 'outlined' : 'filled'}
        aria-label={`${method.label}: ${chip.label}`}
        sx={{ alignSelf: { xs: 'flex-start', sm: 'center' }, flexShrink: 0 }}
      />
    </Stack>
  );
}

/** "Payment methods" of the payment settings: one switch per method, then the MetaMask receiver. */
export function MethodsCard({
  settings,
  values,
  onChange,
  showErrors,
  receiverError,
}: {
  settings: AdminPaymentSettings;
  values: PaymentFormValues;
  onChange(values: PaymentFormValues): void;
  showErrors: boolean;
  receiverError: string | null;
}) {
  return (
    <Card component="section" aria-labelledby="admin-methods-title" sx={{ height: '100%' }}>
      <CardContent sx={{ p: 3 }}>
        <Typography id="admin-methods-title" variant="h6" component="h3">
          Payment methods
        </Typography>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
          Users can pay with a method when it is switched on and the server has what it needs.
        </Typography>
        <Stack divider={<Divider flexItem />}>
          {METHODS.map((method) => (
            <MethodRow
              key={method.key}
              method={method}
              settings={settings}
              checked={values.enabled[method.key]}
              onChange={(checked) =>
                onChange({ ...values, enabled: { ...values.enabled, [method.key]: checked } })
              }
            />
          ))}
        </Stack>
        <Box
          component="fieldset"
          sx={{
            mt: 1,
            p: 2,
            minWidth: 0,
            border: 1,
            borderColor: 'divider',
            borderRadius: 1,
            bgcolor: 'action.hover',
          }}
        >
          <Typography component="legend" variant="subtitle2" sx={{ px: 0.5 }}>
            MetaMask receiver
          </Typography>
          <Stack spacing={2}>
            <TextField
              label="Receiver address"
              value={values.receiverAddress}
              onChange={(event) => onChange({ ...values, receiverAddress: event.target.value })}
              placeholder="0x…"
              required={values.enabled.metamask}
              error={(showErrors || values.receiverAddress.length >= 42) && receiverError !== null}
              helperText={
                ((showErrors || values.receiverAddress.length >= 42) && receiverError) ||
                'The wallet that receives the transactions.'
              }
              slotProps={{
                htmlInput: { spellCheck: false, autoComplete: 'off', sx: { fontFamily: 'monospace' } },
              }}
            />
            <TextField
              select
              label="Network"
              value={values.chainId}
              onChange={(event) => onChange({ ...values, chainId: event.target.value as ChainId })}
            >
              {NETWORKS.map((network) => (
                <MenuItem key={network.chainId} value={network.chainId}>
                  {network.label} · {network.chainId}
                </MenuItem>
              ))}
            </TextField>
            <Alert severity="info" variant="outlined">
              {METAMASK_SETTINGS_NOTICE}
            </Alert>
          </Stack>
        </Box>
      </CardContent>
    </Card>
  );
}
