import { N8N_PASSWORD } from '@berth/openapi/rules';
import { Stack, TextField, Typography } from '@mui/material';
import type { FieldProps } from '../../components/form/use-form.ts';
import { PasswordField } from '../../components/password-field.tsx';
import type { WordPressValues } from './instance-validation.ts';

interface FormAccess {
  field(name: keyof WordPressValues & string): FieldProps;
}

/** n8n's owner account: the editor is set up with it, so the customer signs in at once. */
export function N8nOwnerFields({ form }: { form: FormAccess }) {
  return (
    <Stack spacing={2}>
      <Typography variant="subtitle2" component="h3">
        n8n owner account
      </Typography>
      <TextField {...form.field('email')} label="Owner Email" type="email" autoComplete="email" required />
      <PasswordField
        {...form.field('password')}
        label="Owner Password"
        autoComplete="new-password"
        required
        helperText={form.field('password').helperText ?? N8N_PASSWORD.message}
      />
    </Stack>
  );
}
