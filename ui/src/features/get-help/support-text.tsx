import { Link, Typography } from '@mui/material';
import type { ReactNode } from 'react';

/**
 * Markdown-style links (`[text](https://…)`) and bare http(s) or mailto links; everything else is plain
 * text. Only http:, https: and mailto: targets become links (a `javascript:` one stays text).
 */
const LINK =
  /\[([^\]\n]{1,300})\]\(((?:https?:\/\/|mailto:)[^\s)]+)\)|((?:https?:\/\/)[^\s<]*[^\s<.,;:!?)\]'"])/g;

export type TextPart = { at: number; text: string; href?: string };

/** Splits `text` into plain and link parts, each with its offset (exported for tests). */
export function linkParts(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let last = 0;
  for (const match of text.matchAll(LINK)) {
    const index = match.index ?? 0;
    if (index > last) parts.push({ at: last, text: text.slice(last, index) });
    const [whole, label, target, bare] = match;
    const href = target ?? bare ?? whole;
    parts.push({ at: index, text: label ?? href, href });
    last = index + whole.length;
  }
  if (last < text.length) parts.push({ at: last, text: text.slice(last) });
  return parts;
}

/**
 * A ticket's or an answer's text, rendered safely: React elements only (no HTML is ever parsed, so a
 * `<script>` or `<img onerror>` in the text is shown as the characters it is), line breaks kept, and
 * links opened in a new tab without access to this page (`rel="noopener noreferrer"`).
 */
export function SupportText({ text, color }: { text: string; color?: string }) {
  const nodes: ReactNode[] = linkParts(text).map((part) =>
    part.href ? (
      <Link
        key={part.at}
        href={part.href}
        target="_blank"
        rel="noopener noreferrer"
        sx={{ wordBreak: 'break-all' }}
      >
        {part.text}
      </Link>
    ) : (
      <span key={part.at}>{part.text}</span>
    ),
  );
  return (
    <Typography
      component="div"
      variant="body2"
      color={color}
      sx={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}
    >
      {nodes}
    </Typography>
  );
}
