/** A link the app shows somewhere (top bar, footer, quick links); lists are filtered by navigation/. */
export interface AppLink {
  label: string;
  to: string;
}
