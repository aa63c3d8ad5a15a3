import { DOMAIN_VERIFICATION } from '@berth/openapi/rules';
import KeyIcon from '@mui/icons-material/Key';
import {
  Alert,
  Box,
  Button,
  FormControlLabel,
  FormHelperText,
  MenuItem,
  Radio,
  RadioGroup,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useEffect, useState } from 'react';
import type { PhpChoices } from '../../api/instances.queries.ts';
import type { FieldProps } from '../../components/form/use-form.ts';
import { PasswordField } from '../../components/password-field.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import type { DomainType, WordPressValues } from './instance-validation.ts';
import { PasswordGeneratorDialog } from './password-generator-dialog.tsx';

interface FormAccess {
  values: WordPressValues;
  field(name: keyof WordPressValues & string): FieldProps;
  setValue<K extends keyof WordPressValues>(name: K, value: WordPressValues[K]): void;
}

/**
 * The DNS hint of a custom domain: the spec's CNAME sentence, and the TXT record that proves the domain
 * is the customer's (its value appears on the instance page once the instance is made; without the
 * record the domain is never bound).
 */
const DOMAIN_HINT =
  'Point a CNAME record for your domain at this platform before you publish the site, so that it can bind the domain and issue its SSL certificate. ' +
  `Add a TXT record named ${DOMAIN_VERIFICATION.name}.<your domain> as well, with the value the instance page shows once it is created: it proves the domain is yours, and the domain is bound only then.`;

/** Domain Type of applications: Temporary, or Custom domain with the DNS hint (CNAME and TXT records). */
export function DomainTypeFields({ form }: { form: FormAccess }) {
  const custom = form.values.domainType === 'Custom Domain';
  return (
    <Box>
      <Typography id="domain-type-label" variant="subtitle2">
        Domain Type
      </Typography>
      <RadioGroup
        row
        aria-labelledby="domain-type-label"
        value={form.values.domainType}
        onChange={(_event, value) => form.setValue('domainType', value as DomainType)}
      >
        <FormControlLabel value="Temporary" control={<Radio />} label="Temporary domain" />
        <FormControlLabel value="Custom Domain" control={<Radio />} label="Custom domain" />
      </RadioGroup>
      {custom && (
        <Stack spacing={1.5} sx={{ mt: 1 }}>
          <TextField
            {...form.field('customDomain')}
            label="Custom Domain"
            placeholder="example.com"
            required
          />
          <Alert severity="info" variant="outlined">
            {DOMAIN_HINT}
          </Alert>
        </Stack>
      )}
    </Box>
  );
}

/**
 * Keeps the form on a PHP version the server offers: once its choices are known, a version it does not
 * offer (or none yet) becomes its default.
 */
function useOfferedPhp(php: PhpChoices | undefined, form: FormAccess): void {
  const chosen = form.values.php;
  const { setValue } = form;
  useEffect(() => {
    if (php && !php.versions.includes(chosen)) setValue('php', php.default ?? '');
  }, [php, chosen, setValue]);
}

/**
 * The WordPress fields of the deploy form: site title, admin account with a password generator, PHP
 * version. The versions offered are exactly those the server's sites can run on (GET
 * /instances/capabilities); one that went away since is refused by the server, its message shown under
 * the field.
 */
export function WordPressFields({
  form,
  php,
  phpError,
}: {
  form: FormAccess;
  php: PhpChoices | undefined;
  phpError: string | undefined;
}) {
  const toast = useToast();
  const [generating, setGenerating] = useState(false);
  useOfferedPhp(php, form);
  const password = form.field('password');
  const versions = php?.versions ?? [];
  return (
    <Stack spacing={2.5}>
      <TextField {...form.field('title')} label="Site Title" required />
      <TextField {...form.field('username')} label="Admin Username" required autoComplete="off" />
      <TextField {...form.field('email')} label="Admin Email" type="email" required />
      <Stack direction={{ xs: 'column', sm: 'row' }} sx={{ gap: 1.5, alignItems: { sm: 'flex-start' } }}>
        <PasswordField {...password} label="Admin Password" required autoComplete="new-password" fullWidth />
        <Button
          variant="outlined"
          startIcon={<KeyIcon />}
          onClick={() => {
            setGenerating(true);
            toast.success('Generated a strong password');
          }}
          sx={{ flexShrink: 0, mt: { sm: 1 } }}
        >
          Generate
        </Button>
      </Stack>
      {generating && (
        <PasswordGeneratorDialog
          onClose={() => setGenerating(false)}
          onUse={(generated) => form.setValue('password', generated)}
        />
      )}
      <Box>
        <TextField
          select
          label="PHP Version"
          value={versions.includes(form.values.php) ? form.values.php : ''}
          onChange={(event) => form.setValue('php', event.target.value)}
          error={phpError !== undefined}
          disabled={versions.length === 0}
          fullWidth
        >
          {versions.map((version) => (
            <MenuItem key={version} value={version}>
              PHP {version}
              {version === php?.default ? ' (default)' : ''}
            </MenuItem>
          ))}
        </TextField>
        {phpError && <FormHelperText error>{phpError}</FormHelperText>}
      </Box>
    </Stack>
  );
}
