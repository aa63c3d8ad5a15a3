import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import RocketLaunchIcon from '@mui/icons-material/RocketLaunch';
import {
  Alert,
  Box,
  Button,
  CircularProgress,
  Container,
  FormHelperText,
  Grid,
  Stack,
  TextField,
  ToggleButton,
  ToggleButtonGroup,
  Typography,
} from '@mui/material';
import { useCallback, useState } from 'react';
import { Link as RouterLink, useNavigate } from 'react-router';
import { errorMessage, fieldErrorsOf } from '../../api/api-error.ts';
import {
  useDeployInstanceMutation,
  useInstanceCapabilitiesQuery,
  useRegionsQuery,
} from '../../api/instances.queries.ts';
import { useCanCreateInstanceQuery } from '../../api/subscriptions.queries.ts';
import { useForm } from '../../components/form/use-form.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { CannotCreateAlert } from './cannot-create-alert.tsx';
import { ChoiceCard, Section } from './deploy-choice.tsx';
import {
  CANNOT_CREATE,
  CATEGORY_LABELS,
  type Category,
  DEFAULT_REGION,
  defaultCategory,
  QUICK_DEPLOY_RESOURCES,
  REGIONS,
  type RegionId,
  regionNotes,
  regionOffered,
  TYPE_CHOICES,
} from './instance-catalog.ts';
import {
  CUSTOM_PHP,
  DESCRIPTION_MAX,
  type DeployValues,
  INITIAL_WORDPRESS,
  NAME_MAX,
  normaliseDomain,
  validateDeploy,
  validateN8n,
  validateWordPress,
  type WordPressValues,
} from './instance-validation.ts';
import { N8nOwnerFields } from './n8n-deploy-fields.tsx';
import { useOfferedRegion } from './use-offered-region.ts';
import { DomainTypeFields, WordPressFields } from './wordpress-deploy-fields.tsx';

type FormValues = DeployValues & WordPressValues;

const INITIAL: FormValues = {
  type: '',
  name: '',
  description: '',
  region: DEFAULT_REGION,
  ...INITIAL_WORDPRESS,
};

/**
 * The deploy body's application fields: the domain type, for WordPress the site and admin, for n8n the
 * owner account.
 */
function applicationFields(values: FormValues, wordpress: boolean, n8n: boolean) {
  const custom = values.domainType === 'Custom Domain';
  return {
    domainType: values.domainType,
    ...(custom ? { customDomain: normaliseDomain(values.customDomain) } : {}),
    ...(wordpress
      ? {
          title: values.title.trim(),
          username: values.username.trim(),
          email: values.email.trim(),
          password: values.password,
          phpversion: values.php === CUSTOM_PHP ? values.customPhp.trim() : values.php,
        }
      : {}),
    ...(n8n ? { email: values.email.trim(), password: values.password } : {}),
  };
}

/**
 * Deploy New Instance, /instances/new: a category, a type the server can
 * deploy (the others disabled with its reason), name, description and region. A 202 says 'Instance
 * deployment initiated' and leads to /instances; a 403 refreshes the subscription and shows why.
 */
export function NewInstancePage() {
  const navigate = useNavigate();
  const toast = useToast();
  const capabilities = useInstanceCapabilitiesQuery();
  const regions = useRegionsQuery();
  const canCreate = useCanCreateInstanceQuery();
  const deploy = useDeployInstanceMutation();
  const [chosenCategory, setCategory] = useState<Category | null>(null);
  const category = chosenCategory ?? defaultCategory(capabilities.data);
  const validate = useCallback(
    (values: FormValues) => ({
      ...validateDeploy(values, category),
      ...(category === 'application' ? validateWordPress(values, values.type === 'wordpress') : {}),
      ...(values.type === 'n8n' ? validateN8n(values) : {}),
    }),
    [category],
  );
  const form = useForm(INITIAL, validate);
  useOfferedRegion(regions.data, form.values.region, (region) => form.setValue('region', region));
  const [phpError, setPhpError] = useState<string | undefined>();
  const choices = TYPE_CHOICES[category];
  const chosen = choices.find((choice) => choice.type !== undefined && choice.type === form.values.type);
  const blocked = canCreate.data?.canCreate === false;

  const switchCategory = (next: Category) => {
    setCategory(next);
    form.setValue('type', '');
  };

  const submit = form.handleSubmit((values) => {
    setPhpError(undefined);
    if (blocked) {
      toast.error(CANNOT_CREATE);
      return;
    }
    const capability = capabilities.data?.find((entry) => entry.type === values.type);
    if (!capability?.available) {
      toast.error(capability?.reason ?? 'Failed to deploy instance');
      return;
    }
    deploy.mutate(
      {
        name: values.name.trim(),
        description: values.description.trim(),
        region: values.region as RegionId,
        type: capability.name,
        ...QUICK_DEPLOY_RESOURCES,
        ...(capability.category === 'application'
          ? applicationFields(values, capability.type === 'wordpress', capability.type === 'n8n')
          : {}),
      },
      {
        onSuccess: ({ message }) => {
          toast.success(message || 'Instance deployment initiated');
          navigate('/instances');
        },
        onError: (error) => {
          const fields = fieldErrorsOf(error);
          form.showServerErrors(fields);
          // The server refuses a PHP version its host lacks, in its own words (a message without a field).
          const message = errorMessage(error, '');
          setPhpError(fields.phpversion ?? (/\bPHP\b/.test(message) ? message : undefined));
          toast.error(errorMessage(error, 'Failed to deploy instance'));
        },
      },
    );
  });

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
          <ToggleButtonGroup
            exclusive
            color="primary"
            value={category}
            onChange={(_event, value: Category | null) => value && switchCategory(value)}
            aria-label="Category"
            sx={{ mb: 2.5 }}
          >
            {(Object.keys(CATEGORY_LABELS) as Category[]).map((value) => (
              <ToggleButton key={value} value={value} sx={{ px: 3 }}>
                {CATEGORY_LABELS[value]}
              </ToggleButton>
            ))}
          </ToggleButtonGroup>

          {capabilities.isPending ? (
            <Stack role="status" sx={{ alignItems: 'center', py: 4 }}>
              <CircularProgress aria-label="Loading instance types" />
            </Stack>
          ) : capabilities.isError ? (
            <Alert
              severity="error"
              action={
                <Button color="inherit" size="small" onClick={() => void capabilities.refetch()}>
                  Retry
                </Button>
              }
            >
              We could not load what this server can deploy.
            </Alert>
          ) : (
            <Grid
              container
              spacing={2}
              role="radiogroup"
              aria-label={category === 'database' ? 'Database' : 'Application'}
              aria-describedby={typeError ? 'type-error' : undefined}
            >
              {choices.map((choice) => (
                <Grid key={choice.name} size={{ xs: 12, sm: 6 }}>
                  <ChoiceCard
                    choice={choice}
                    capabilities={capabilities.data}
                    selected={choice.type !== undefined && choice.type === form.values.type}
                    onSelect={() => choice.type && form.setValue('type', choice.type)}
                  />
                </Grid>
              ))}
            </Grid>
          )}
          {typeError && (
            <FormHelperText id="type-error" error sx={{ mt: 1.5, fontSize: '0.875rem' }}>
              {typeError}
            </FormHelperText>
          )}
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
              <Box>
                <Typography id="region-label" variant="subtitle2" sx={{ mb: 1 }}>
                  Region
                </Typography>
                <Box
                  role="group"
                  aria-labelledby="region-label"
                  sx={{
                    display: 'grid',
                    gridTemplateColumns: { xs: 'repeat(2, 1fr)', sm: 'repeat(3, 1fr)', md: 'repeat(4, 1fr)' },
                    gap: 1,
                  }}
                >
                  {REGIONS.map((region) => {
                    const selected = form.values.region === region.id;
                    const offered = regionOffered(regions.data, region.id);
                    return (
                      <Button
                        key={region.id}
                        variant={selected ? 'contained' : 'outlined'}
                        color={selected ? 'primary' : 'inherit'}
                        aria-pressed={selected}
                        disabled={!offered}
                        onClick={() => form.setValue('region', region.id)}
                        sx={{
                          flexDirection: 'column',
                          alignItems: 'flex-start',
                          textAlign: 'left',
                          py: 1,
                          borderColor: selected ? undefined : 'divider',
                        }}
                      >
                        <Box component="span" sx={{ lineHeight: 1.3 }}>
                          {region.label}
                        </Box>
                        <Box component="span" sx={{ fontSize: '0.75rem', fontWeight: 400, opacity: 0.8 }}>
                          {region.id}
                        </Box>
                      </Button>
                    );
                  })}
                </Box>
                {regionNotes(regions.data).map((note) => (
                  <Typography key={note} variant="body2" color="text.secondary" sx={{ mt: 1 }}>
                    {note}
                  </Typography>
                ))}
              </Box>
              {chosen.category === 'application' && <DomainTypeFields form={form} />}
              {chosen.type === 'wordpress' && <WordPressFields form={form} phpError={phpError} />}
              {chosen.type === 'n8n' && <N8nOwnerFields form={form} />}
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
            loading={deploy.isPending}
            loadingPosition="start"
          >
            {deploy.isPending ? 'Deploying...' : 'Deploy Instance'}
          </Button>
        </Stack>
      </Stack>
    </Container>
  );
}
