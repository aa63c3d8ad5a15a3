import { type ChangeEvent, type FormEvent, useCallback, useMemo, useState } from 'react';

export type FieldErrors<T> = { [K in keyof T]?: string | undefined };

type StringFields<T> = { [K in keyof T]: string };

export interface FieldProps {
  name: string;
  value: string;
  onChange(event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>): void;
  onBlur(): void;
  error: boolean;
  helperText: string | undefined;
}

/**
 * A small form-state hook: values, client rules (shown once a field was changed and left, or the form
 * submitted), and server messages per field (cleared when that field changes). A field left untouched,
 * such as an autofocused one the user clicks away from, shows nothing until the form is submitted:
 * a message appearing on that blur would shift the page under the pointer.
 */
export function useForm<T extends StringFields<T>>(initial: T, validate: (values: T) => FieldErrors<T>) {
  const [values, setValues] = useState<T>(initial);
  const [touched, setTouched] = useState<{ [K in keyof T]?: boolean }>({});
  const [changed, setChanged] = useState<{ [K in keyof T]?: boolean }>({});
  const [submitted, setSubmitted] = useState(false);
  const [serverErrors, setServerErrors] = useState<FieldErrors<T>>({});
  const errors = useMemo(() => validate(values), [validate, values]);

  const setValue = useCallback(<K extends keyof T>(name: K, value: T[K]) => {
    setValues((current) => ({ ...current, [name]: value }));
    setChanged((current) => (current[name] ? current : { ...current, [name]: true }));
    setServerErrors((current) => (current[name] === undefined ? current : { ...current, [name]: undefined }));
  }, []);

  const errorOf = (name: keyof T): string | undefined =>
    serverErrors[name] ?? (submitted || touched[name] ? errors[name] : undefined);

  const field = (name: keyof T & string): FieldProps => {
    const error = errorOf(name);
    return {
      name,
      value: values[name],
      onChange: (event) => setValue(name, event.target.value as T[typeof name]),
      onBlur: () => {
        if (changed[name]) setTouched((current) => (current[name] ? current : { ...current, [name]: true }));
      },
      error: error !== undefined,
      helperText: error,
    };
  };

  const handleSubmit = (onValid: (values: T) => void) => (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSubmitted(true);
    setServerErrors({});
    if (Object.values(errors).every((message) => message === undefined)) onValid(values);
  };

  /** Shows the server's per-field messages (keys that are not fields of this form are ignored). */
  const showServerErrors = useCallback(
    (messages: Record<string, string>) => {
      const known: FieldErrors<T> = {};
      for (const [name, message] of Object.entries(messages)) {
        if (name in initial) known[name as keyof T] = message;
      }
      setServerErrors(known);
    },
    [initial],
  );

  /** Back to the initial values, with no message shown (after a successful submit). */
  const reset = useCallback(() => {
    setValues(initial);
    setTouched({});
    setChanged({});
    setSubmitted(false);
    setServerErrors({});
  }, [initial]);

  return { values, setValue, field, errorOf, handleSubmit, showServerErrors, reset };
}
