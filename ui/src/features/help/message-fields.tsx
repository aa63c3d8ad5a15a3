import { MenuItem, TextField } from '@mui/material';
import type { useForm } from '../../components/form/use-form.ts';
import { CONTACT_CATEGORIES, CONTACT_LIMITS, type ContactValues } from './contact-validation.ts';

/**
 * The message part of the help page's contact form and of the Get Help ticket form: category,
 * subject, and the message with a character counter (an error replaces the counter).
 */
export function MessageFields({ form }: { form: ReturnType<typeof useForm<ContactValues>> }) {
  const messageField = form.field('message');
  const messageLength = form.values.message.trim().length;
  return (
    <>
      <TextField {...form.field('category')} select label="Category">
        {CONTACT_CATEGORIES.map((category) => (
          <MenuItem key={category.value} value={category.value}>
            {category.label}
          </MenuItem>
        ))}
      </TextField>
      <TextField {...form.field('subject')} label="Subject" />
      <TextField
        {...messageField}
        label="Message"
        multiline
        minRows={5}
        helperText={messageField.helperText ?? `${messageLength} / ${CONTACT_LIMITS.message}`}
      />
    </>
  );
}
