import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import RocketLaunchIcon from '@mui/icons-material/RocketLaunch';
import { Alert, Box, Button, Container, Stack, TextField, Typography } from '@mui/material';
import { useCallback, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import {
  useInstanceCapabilitiesQuery,
  usePhpChoicesQuery,
  useRegionsQuery,
} from '../../api/instances.queries.ts';
import { useCanCreateInstanceQuery } from '../../api/subscriptions.queries.ts';
import { useForm } from '../../components/form/use-form.ts';
import { CannotCreateAlert } from './cannot-create-alert.tsx';
import { Section } from './deploy-choice.tsx';
import { DeployTypePicker } from './deploy-type-picker.tsx';
import {
  type Category,
  DEFAULT_REGION,
  defaultCategory,
  entryOfId,
  TYPE_CHOICES,
} from './instance-catalog.ts';
import {
  DESCRIPTION_MAX,
  INITIAL_WORDPRESS,
  NAME_MAX,
  validateDeploy,
  validateN8n,
  validateWordPress,
} from './instance-validation.ts';
import { N8nOwnerFields } from './n8n-deploy-fields.tsx';
import { RegionPicker } from './region-picker.tsx';
import { type DeployFormValues, useDeploySubmit } from './use-deploy-submit.ts';
import { useOfferedRegion } from './use-offered-region.ts';
import { DomainTypeFields, WordPressFields } from './wordpress-deploy-fields.tsx';

const INITIAL: DeployFormValues = {
  type: '',
  name: '',
  description: '',
  region: DEFAULT_REGION,
  ...INITIAL_WORDPRESS,
};

/**
 * Deploy New Instance, /instances/new: a category, a type the server can
 * deploy (the others disabled with its reason), name, description and region. A 202 says 'Instance
 * deployment initiated' and leads to /instances; a 403 refreshes the subscription and shows why.
 */
export function NewInstancePage() {
  const capabilities = useInstanceCapabilitiesQuery();
  const regions = useRegionsQuery();
  const php = usePhpChoicesQuery();
  const canCreate = useCanCreateInstanceQuery();
  const [chosenCategory, setCategory] = useState<Category | null>(null);
  const category = chosenCategory ?? defaultCategory(capabilities.data);
  const validate = useCallback(
    (values: DeployFormValues) => {
      const deployFields = entryOfId(values.type)?.deployFields;
      return {
        ...validateDeploy(values, category),
        ...(category === 'application' ? validateWordPress(values, deployFields === 'wordpressAdmin') : {}),
        ...(deployFields === 'n8nOwner' ? validateN8n(values) : {}),
      };
    },
    [category],
  );
  const form = useForm(INITIAL, validate);
  useOfferedRegion(regions.data, form.values.region, (region) => form.setValue('region', region));
  const choices = TYPE_CHOICES[category];
  const chosen = choices.find((choice) => choice.type !== undefined && choice.type === form.values.type);
  const blocked = canCreate.data?.canCreate === false;

  const switchCategory = (next: Category) => {
    setCategory(next);
    form.setValue('type', '');
  };

  const { submit, phpError, deploying } = useDeploySubmit(form, capabilities.data, blocked);

  const nameField = form.field('name');
  const descriptionField = form.field('description');
  const typeError = form.errorOf('type');

  return (
    <Container maxWidth="md" sx={{ py: { xs: 3, sm: 5 } }}>
      <Button component={RouterLink} to="/instances" startIcon={<ArrowBackIcon />} sx={{ mb: 2, ml: -1 }}>
        Back to Instances
      </Button>
      <Box sx={{ mb: 3 }}>
        <Typography variant="h4" component="h1">
          Deploy New Instance
        </Typography>
        <Typography color="text.secondary" sx={{ mt: 0.5 }}>
          Choose what to run, name it and pick a region.
        </Typography>
      </Box>

      {blocked && <CannotCreateAlert reason={canCreate.data?.reason} spacing={3} />}

      <Stack component="form" noValidate onSubmit={submit} spacing={3}>
        <Section id="choose-type" title="What to deploy">
          <DeployTypePicker
            category={category}
            onCategory={switchCategory}
            capabilities={capabilities}
            type={form.values.type}
            onType={(type) => form.setValue('type', type)}
            typeError={typeError}
          />
        </Section>

        {chosen && (
          <Section id="configure" title={`Configure your ${chosen.name} instance`}>
            <Stack spacing={2.5}>
              <TextField
                {...nameField}
                label="Instance Name"
                placeholder="My Instance"
                required
                slotProps={{ htmlInput: { maxLength: NAME_MAX + 20 } }}
              />
              <TextField
                {...descriptionField}
                label="Description (optional)"
                multiline
                minRows={2}
                helperText={
                  descriptionField.helperText ?? `${form.values.description.length}/${DESCRIPTION_MAX}`
                }
              />
              <RegionPicker
                regions={regions.data}
                value={form.values.region}
                onChange={(region) => form.setValue('region', region)}
              />
              {chosen.category === 'application' && <DomainTypeFields form={form} />}
              {chosen.deployFields === 'wordpressAdmin' && (
                <WordPressFields form={form} php={php.data} phpError={phpError} />
              )}
              {chosen.deployFields === 'n8nOwner' && <N8nOwnerFields form={form} />}
              {chosen.deploymentInfo && (
                <Alert severity="info" variant="outlined">
                  <Typography variant="subtitle2" component="p">
                    Deployment Information
                  </Typography>
                  {chosen.deploymentInfo}
                </Alert>
              )}
            </Stack>
          </Section>
        )}

        <Stack direction="row" sx={{ justifyContent: 'flex-end', gap: 1.5 }}>
          <Button component={RouterLink} to="/instances" color="inherit">
            Cancel
          </Button>
          <Button
            type="submit"
            variant="contained"
            startIcon={<RocketLaunchIcon />}
            loading={deploying}
            loadingPosition="start"
          >
            {deploying ? 'Deploying...' : 'Deploy Instance'}
          </Button>
        </Stack>
      </Stack>
    </Container>
  );
}
