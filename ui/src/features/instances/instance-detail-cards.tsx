import { Box, Button, Card, CardContent, Stack, TextField, Typography } from '@mui/material';
import { type ReactNode, useState } from 'react';
import { errorMessage, fieldErrorsOf } from '../../api/api-error.ts';
import { type Instance, useUpdateInstanceMutation } from '../../api/instances.queries.ts';
import { useForm } from '../../components/form/use-form.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import {
  DESCRIPTION_MAX,
  type InstanceSettingsValues,
  NAME_MAX,
  validateInstanceSettings,
} from './instance-validation.ts';

export function SideCard({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <Card component="section" aria-labelledby={`${id}-title`}>
      <CardContent sx={{ p: 3, '&:last-child': { pb: 3 } }}>
        <Typography id={`${id}-title`} variant="h6" component="h2" sx={{ mb: 1.5 }}>
          {title}
        </Typography>
        {children}
      </CardContent>
    </Card>
  );
}

export function Rows({ rows }: { rows: readonly (readonly [string, ReactNode])[] }) {
  return (
    <Box component="dl" sx={{ m: 0 }}>
      {rows.map(([label, value]) => (
        <Stack
          key={label}
          direction="row"
          sx={{
            justifyContent: 'space-between',
            alignItems: 'center',
            gap: 2,
            py: 1.1,
            borderTop: 1,
            borderColor: 'divider',
          }}
        >
          <Typography component="dt" variant="body2" color="text.secondary">
            {label}
          </Typography>
          <Box
            component="dd"
            sx={{ m: 0, fontWeight: 600, fontSize: '0.875rem', textAlign: 'right', wordBreak: 'break-word' }}
          >
            {value}
          </Box>
        </Stack>
      ))}
    </Box>
  );
}

export function Tile({ label, value, caption }: { label: string; value: string; caption?: string }) {
  return (
    <Card role="group" aria-label={label} sx={{ height: '100%' }}>
      <CardContent sx={{ p: 2.5, '&:last-child': { pb: 2.5 } }}>
        <Typography variant="overline" color="text.secondary" component="p">
          {label}
        </Typography>
        <Typography variant="h6" component="p" sx={{ overflowWrap: 'anywhere', lineHeight: 1.35 }}>
          {value}
        </Typography>
        {caption && (
          <Typography variant="body2" color="text.secondary" sx={{ mt: 0.25 }}>
            {caption}
          </Typography>
        )}
      </CardContent>
    </Card>
  );
}

/** Instance Settings: name and description. */
export function SettingsCard({ instance }: { instance: Instance }) {
  const update = useUpdateInstanceMutation(instance.id);
  const toast = useToast();
  const [initial] = useState<InstanceSettingsValues>(() => ({
    name: instance.name,
    description: instance.description,
  }));
  const form = useForm(initial, validateInstanceSettings);
  const unchanged =
    form.values.name.trim() === instance.name && form.values.description.trim() === instance.description;

  const submit = form.handleSubmit((values) =>
    update.mutate(
      { name: values.name.trim(), description: values.description.trim() },
      {
        onSuccess: () => toast.success('Instance updated successfully'),
        onError: (error) => {
          form.showServerErrors(fieldErrorsOf(error));
          toast.error(errorMessage(error, 'Failed to update instance'));
        },
      },
    ),
  );

  const description = form.field('description');
  return (
    <SideCard id="instance-settings" title="Instance Settings">
      <Stack component="form" noValidate onSubmit={submit} spacing={2.5}>
        <TextField
          {...form.field('name')}
          label="Instance Name"
          required
          slotProps={{ htmlInput: { maxLength: NAME_MAX + 20 } }}
        />
        <TextField
          {...description}
          label="Description"
          multiline
          minRows={3}
          helperText={description.helperText ?? `${form.values.description.length}/${DESCRIPTION_MAX}`}
        />
        <Box>
          <Button
            type="submit"
            variant="contained"
            loading={update.isPending}
            disabled={unchanged || instance.status === 'deleting'}
          >
            Save Changes
          </Button>
        </Box>
      </Stack>
    </SideCard>
  );
}
