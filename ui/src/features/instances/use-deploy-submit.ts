import { type DeployFieldsOf, INSTANCE_TYPE_CATALOGUE } from '@berth/openapi/rules';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { errorMessage, fieldErrorsOf } from '../../api/api-error.ts';
import { type InstanceCapability, useDeployInstanceMutation } from '../../api/instances.queries.ts';
import type { useForm } from '../../components/form/use-form.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { CANNOT_CREATE, QUICK_DEPLOY_RESOURCES, type RegionId } from './instance-catalog.ts';
import { type DeployValues, normaliseDomain, type WordPressValues } from './instance-validation.ts';

/** The values of the deploy page's form: the instance, then the WordPress or n8n fields. */
export type DeployFormValues = DeployValues & WordPressValues;

/**
 * The deploy body's application fields: the domain type, and what the type's deploy fields ask: the
 * site and its admin (WordPress) or the owner account (n8n).
 */
function applicationFields(values: DeployFormValues, deployFields: DeployFieldsOf) {
  const custom = values.domainType === 'Custom Domain';
  return {
    domainType: values.domainType,
    ...(custom ? { customDomain: normaliseDomain(values.customDomain) } : {}),
    ...(deployFields === 'wordpressAdmin'
      ? {
          title: values.title.trim(),
          username: values.username.trim(),
          email: values.email.trim(),
          password: values.password,
          // One of the versions the server offers; none chosen yet: the server's default.
          ...(values.php ? { phpversion: values.php } : {}),
        }
      : {}),
    ...(deployFields === 'n8nOwner' ? { email: values.email.trim(), password: values.password } : {}),
  };
}

/**
 * The deploy page's submission: refused here when the plan cannot create or the type is unavailable,
 * else POST /instances/deploy; a 202 leads to /instances, an error shows per field (and the PHP
 * version's own message) and as a toast.
 */
export function useDeploySubmit(
  form: ReturnType<typeof useForm<DeployFormValues>>,
  capabilities: readonly InstanceCapability[] | undefined,
  blocked: boolean,
) {
  const navigate = useNavigate();
  const toast = useToast();
  const deploy = useDeployInstanceMutation();
  const [phpError, setPhpError] = useState<string | undefined>();
  const submit = form.handleSubmit((values) => {
    setPhpError(undefined);
    if (blocked) {
      toast.error(CANNOT_CREATE);
      return;
    }
    const capability = capabilities?.find((entry) => entry.type === values.type);
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
          ? applicationFields(values, INSTANCE_TYPE_CATALOGUE[capability.type].deployFields)
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
  return { submit, phpError, deploying: deploy.isPending };
}
