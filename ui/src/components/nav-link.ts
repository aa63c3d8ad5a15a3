/** A link the app shows somewhere (top bar, footer, quick links); lists are filtered by app/. */
export interface AppLink {
  label: string;
  to: string;
}
