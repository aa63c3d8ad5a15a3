import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { INSTANCE_TYPES, type InstanceType, TYPE_FEATURES } from '../../src/provisioning/instance-types.ts';

/** The rows of each type: what every instance does, then its type's features, then isolation. */
const ROWS_BEFORE = ['declared', 'deploy', 'limits'] as const;
const ROWS_AFTER = ['isolation', 'suspend', 'resume', 'delete'] as const;

/** What one cell of the table says: passed, declared unavailable (with the reason), or failed. */
export type Cell = { kind: 'pass' } | { kind: 'unavailable'; reason: string } | { kind: 'fail'; why: string };

/** Where the tables go: the repository's .vitest-results (npm test prints them at its end). */
const RESULTS_DIR = path.resolve(import.meta.dirname, '../../../.vitest-results');

export function rowsOf(type: InstanceType): string[] {
  return [...ROWS_BEFORE, ...TYPE_FEATURES[type], ...ROWS_AFTER];
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').replaceAll('|', '\\|').slice(0, 160);

function show(cell: Cell | undefined): string {
  if (!cell) return '✗ (not run)';
  if (cell.kind === 'pass') return '✓';
  if (cell.kind === 'unavailable') return `unavailable: ${oneLine(cell.reason)}`;
  return `✗ ${oneLine(cell.why)}`;
}

/** The outcome of every capability × type of one driver, and its table. */
export function contractResults(label: string) {
  const cells = new Map<string, Cell>();
  const key = (type: InstanceType, row: string) => `${type}/${row}`;
  return {
    record(type: InstanceType, row: string, cell: Cell) {
      // A failure stays: a later pass of the same row does not hide it.
      if (cells.get(key(type, row))?.kind === 'fail') return;
      cells.set(key(type, row), cell);
    },
    get: (type: InstanceType, row: string) => cells.get(key(type, row)),

    /** The table in Markdown: one row per type × capability, the driver's column. */
    table(): string {
      const lines = [`| Type | Capability | ${label} |`, '| --- | --- | --- |'];
      for (const type of INSTANCE_TYPES)
        for (const row of rowsOf(type))
          lines.push(`| ${type} | ${row} | ${show(cells.get(key(type, row)))} |`);
      return lines.join('\n');
    },

    /** Writes the table to .vitest-results/contract-<label>.md; answers the file. */
    write(): string {
      mkdirSync(RESULTS_DIR, { recursive: true });
      const file = path.join(RESULTS_DIR, `contract-${label}.md`);
      writeFileSync(
        file,
        `Driver contract: ${label} (✓ passed · unavailable: declared by its engine, with the customer's reason · ✗ failed)\n\n${this.table()}\n`,
      );
      return file;
    },
  };
}

export type ContractResults = ReturnType<typeof contractResults>;
