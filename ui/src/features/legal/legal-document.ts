/** A paragraph, or a bulleted list. */
export type LegalBlock = string | { list: readonly string[] };

interface LegalSection {
  heading: string;
  blocks: readonly LegalBlock[];
}

export interface LegalDocument {
  title: string;
  /** Shown as 'Last updated: …'. */
  updated: string;
  intro: string;
  sections: readonly LegalSection[];
  /** The affiliate documents link back to the affiliate programme too. */
  affiliate?: boolean;
}

export const LAST_UPDATED = '22 November 2026';
