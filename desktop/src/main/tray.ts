/**
 * The tray icon: a line such as "2 of 3 instances running" (tooltip and first menu line), "Open Berth"
 * and "Quit Berth". The renderer reports the counts it already keeps up to date from the live stream
 * (`tray:report-instance-counts`), so the main process holds no token and makes no API calls of its own.
 */
import type { InstanceCounts } from '../shared/ipc-contract.ts';

/** A menu item as `Menu.buildFromTemplate` takes it (the subset used here). */
export interface TrayMenuItem {
  label?: string;
  type?: 'normal' | 'separator';
  enabled?: boolean;
  click?: () => void;
}

/** The part of Electron's `Tray` used here; `M` is Electron's `Menu`. */
export interface TrayLike<M> {
  setToolTip(text: string): void;
  setContextMenu(menu: M | null): void;
  on(event: 'click', listener: () => void): unknown;
}

export interface InstanceTrayDeps<M> {
  /** `new Tray(icon)`. */
  createTray(): TrayLike<M>;
  /** `Menu.buildFromTemplate(items)`. */
  buildMenu(items: TrayMenuItem[]): M;
  /** Brings the app forward (see main-window.ts). */
  showWindow(): void;
  quit(): void;
}

export interface InstanceTray {
  update(counts: InstanceCounts | null): void;
}

/** The status line: "2 of 3 instances running", "1 of 1 instance running", "No instances", "Not signed in". */
export function instanceCountsLine(counts: InstanceCounts | null): string {
  if (!counts) return 'Not signed in';
  if (counts.total === 0) return 'No instances';
  return `${counts.running} of ${counts.total} ${counts.total === 1 ? 'instance' : 'instances'} running`;
}

export function createInstanceTray<M>(deps: InstanceTrayDeps<M>): InstanceTray {
  const tray = deps.createTray();
  // Where the platform reports clicks (Windows, macOS, some Linux trays); elsewhere the menu does it.
  tray.on('click', () => deps.showWindow());
  const update = (counts: InstanceCounts | null) => {
    const line = instanceCountsLine(counts);
    tray.setToolTip(`Berth: ${line}`);
    tray.setContextMenu(
      deps.buildMenu([
        { label: line, enabled: false },
        { type: 'separator' },
        { label: 'Open Berth', click: () => deps.showWindow() },
        { label: 'Quit Berth', click: () => deps.quit() },
      ]),
    );
  };
  update(null);
  return { update };
}
