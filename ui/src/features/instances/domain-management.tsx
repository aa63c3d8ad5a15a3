import LockIcon from '@mui/icons-material/Lock';
import LockOpenIcon from '@mui/icons-material/LockOpen';
import { Button, Chip, Stack, TextField } from '@mui/material';
import { errorMessage, fieldErrorsOf } from '../../api/api-error.ts';
import { type Instance, useAddDomainMutation } from '../../api/instances.queries.ts';
import { useForm } from '../../components/form/use-form.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { SSL_LABELS, sslColor } from './instance-catalog.ts';
import { domainError, normaliseDomain } from './instance-validation.ts';

/** 'SSL Active' / 'SSL Pending' / 'SSL Failed' of a custom domain; 'Not Configured' without one. */
export function SslBadge({ instance }: { instance: Pick<Instance, 'customDomain'> }) {
  const status = instance.customDomain?.ssl.status;
  if (!status) return <Chip size="small" variant="outlined" icon={<LockOpenIcon />} label="Not Configured" />;
  return (
    <Chip
      size="small"
      color={sslColor(status)}
      variant={status === 'Active' ? 'filled' : 'outlined'}
      icon={status === 'Active' ? <LockIcon /> : <LockOpenIcon />}
      label={SSL_LABELS[status]}
    />
  );
}

/** The host of a URL ('' when it is not one), the placeholder of the domain field. */
export function hostOf(url: string | null | undefined): string {
  try {
    return url ? new URL(url).host : '';
  } catch {
    return '';
  }
}

const INITIAL_DOMAIN = { domain: '' };
const validateDomain = (values: { domain: string }) => ({ domain: domainError(values.domain) });

/**
 * The Add Custom Domain form: 'Domain Name' with the site's host as placeholder,
 * Add Domain and Cancel. 'Custom domain added successfully' or 'Failed to add custom domain' (with
 * the server's reason).
 */
export function DomainForm({
  instance,
  onDone,
  disabled = false,
}: {
  instance: Instance;
  onDone(): void;
  disabled?: boolean;
}) {
  const toast = useToast();
  const add = useAddDomainMutation(instance.id);
  const form = useForm(INITIAL_DOMAIN, validateDomain);

  const submit = form.handleSubmit(({ domain }) =>
    add.mutate(normaliseDomain(domain), {
      onSuccess: ({ message }) => {
        toast.success(message || 'Custom domain added successfully');
        onDone();
      },
      onError: (error) => {
        form.showServerErrors(fieldErrorsOf(error));
        toast.error(errorMessage(error, 'Failed to add custom domain'));
      },
    }),
  );

  return (
    <Stack component="form" noValidate onSubmit={submit} spacing={1.5} aria-label="Add Custom Domain">
      <TextField
        {...form.field('domain')}
        label="Domain Name"
        placeholder={hostOf(instance.url) || 'example.com'}
        required
        autoFocus
        size="small"
      />
      <Stack direction="row" sx={{ gap: 1, justifyContent: 'flex-end' }}>
        <Button color="inherit" onClick={onDone}>
          Cancel
        </Button>
        <Button type="submit" variant="contained" loading={add.isPending} disabled={disabled}>
          Add Domain
        </Button>
      </Stack>
    </Stack>
  );
}
