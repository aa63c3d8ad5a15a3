/**
 * System notifications. The renderer forwards each new notification of the live stream (`app:notify`);
 * here it becomes an Electron `Notification`, and a click brings the app forward at the notification's
 * route. Electron's classes are injected so the path is tested in Node.
 */
import type { MainWindow } from './main-window.ts';

/** The part of Electron's `Notification` used here. */
export interface NotificationLike {
  on(event: 'click' | 'close', listener: () => void): unknown;
  show(): void;
}

export interface NotifierDeps {
  /** `Notification.isSupported()`: false on a Linux desktop without a notification server. */
  isSupported(): boolean;
  /** `new Notification({ title, body })`. */
  createNotification(options: { title: string; body: string }): NotificationLike;
  window: Pick<MainWindow, 'show' | 'showRoute'>;
}

export interface Notifier {
  /** Shows a notification; a click opens `route`, or just brings the app forward without one. */
  notify(title: string, body: string, route?: string): void;
}

/**
 * Electron drops a notification's click handler when the object is garbage-collected, so shown ones are
 * kept until clicked or closed (at most this many, for desktops that never report a close).
 */
const MAX_KEPT = 50;

export function createNotifier(deps: NotifierDeps): Notifier {
  const kept = new Set<NotificationLike>();
  const forget = (notification: NotificationLike) => kept.delete(notification);
  return {
    notify(title, body, route) {
      if (!deps.isSupported()) return;
      const notification = deps.createNotification({ title, body });
      notification.on('click', () => {
        forget(notification);
        if (route) deps.window.showRoute(route);
        else deps.window.show();
      });
      notification.on('close', () => forget(notification));
      kept.add(notification);
      if (kept.size > MAX_KEPT) {
        const oldest = kept.values().next().value;
        if (oldest) kept.delete(oldest);
      }
      notification.show();
    },
  };
}
