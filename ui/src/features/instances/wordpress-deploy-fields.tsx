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
import { useState } from 'react';
import type { FieldProps } from '../../components/form/use-form.ts';
import { PasswordField } from '../../components/password-field.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import { CUSTOM_PHP, type DomainType, PHP_VERSIONS, type WordPressValues } from './instance-validation.ts';
import { PasswordGeneratorDialog } from './password-generator-dialog.tsx';

interface FormAccess {
  values: WordPressValues;
  field(name: keyof WordPressValues & string): FieldProps;
  setValue<K extends keyof WordPressValues>(name: K, value: WordPressValues[K]): void;
}

/** The DNS hint of a custom domain. */
const CNAME_HINT =
  'Point a CNAME record for your domain at this platform before you publish the site, so that it can bind the domain and issue its SSL certificate.';

/** Domain Type of applications: Temporary, or Custom domain with the CNAME hint. */
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
            {CNAME_HINT}
          </Alert>
        </Stack>
      )}
    </Box>
  );
}

/**
 * The WordPress fields of the deploy form: site title, admin account with a password
 * generator, PHP version. This server does not list its PHP versions, so the choices are the spec's;
 * a version the host lacks is refused by the server with its message (shown under the field).
 */
export function WordPressFields({ form, phpError }: { form: FormAccess; phpError: string | undefined }) {
  const toast = useToast();
  const [generating, setGenerating] = useState(false);
  const password = form.field('password');
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
          value={form.values.php}
          onChange={(event) => form.setValue('php', event.target.value)}
          error={phpError !== undefined}
          fullWidth
        >
          {PHP_VERSIONS.map((version) => (
            <MenuItem key={version} value={version}>
              PHP {version}
              {version === '8.2' ? ' (default)' : ''}
            </MenuItem>
          ))}
          <MenuItem value={CUSTOM_PHP}>Custom</MenuItem>
        </TextField>
        {phpError && <FormHelperText error>{phpError}</FormHelperText>}
        {form.values.php === CUSTOM_PHP && (
          <TextField
            {...form.field('customPhp')}
            label="Custom PHP Version"
            placeholder="e.g., 8.3"
            required
            fullWidth
            sx={{ mt: 2 }}
          />
        )}
      </Box>
    </Stack>
  );
}
