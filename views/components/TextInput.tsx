import { Field, type FieldProps } from './Field.tsx';

export type TextInputProps = FieldProps;

/** A 48 px text field with its label, optional hint, and error text below it (aria-describedby). */
export function TextInput(props: TextInputProps) {
  return <Field {...props} />;
}
