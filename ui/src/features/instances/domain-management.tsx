import { Button, Stack, TextField } from '@mui/material';
import { errorMessage, fieldErrorsOf } from '../../api/api-error.ts';
import { useAddDomainMutation } from '../../api/instance-domains.queries.ts';
import type { Instance } from '../../api/instances.queries.ts';
import { useForm } from '../../components/form/use-form.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { hostOf } from './domain-status.tsx';
import { domainError, normaliseDomain } from './instance-validation.ts';

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
