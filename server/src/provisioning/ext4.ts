// What ext4's own tools say, read the same way by both drivers (the swarm's node agent reads it in sh).

/** What dumpe2fs says of a file system's journal ("Total journal size: 32M"), in MiB; undefined: none. */
export function journalMbOf(header: string): number | undefined {
  const found = /^(?:Total )?[Jj]ournal size:\s+(\d+)([kMG])/m.exec(header);
  if (!found) return undefined;
  const unit = { k: 1 / 1024, M: 1, G: 1024 }[found[2] as 'k' | 'M' | 'G'];
  return Number(found[1]) * unit;
}
