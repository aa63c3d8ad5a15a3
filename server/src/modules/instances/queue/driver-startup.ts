import type { InstanceType } from '../../../provisioning/instance-types.ts';

/**
 * Where the provisioning driver's start stands. main.ts answers requests before the driver is ready
 * (host packages install, servers start: 30–60 s on a fresh machine). Meanwhile a deploy of a type the
 * start may bring up is accepted; its job waits for the start to end, and that wait does not count
 * against its deadline. A type the start cannot bring (MongoDB without a server, n8n) is refused at
 * once, as is any type the driver still reports unavailable once the start has ended.
 */
export interface DriverStartup {
  /** Whether the start is under way and may still make `type` available. */
  mayProvide(type: InstanceType): boolean;
  /** Settles once the start has ended (at once when it has); rejects when `signal` aborts first. */
  ended(signal?: AbortSignal): Promise<void>;
  /** How long the start kept a job asked for at `askedAt` (ms since the epoch) waiting, in ms. */
  waitedSince(askedAt: number): number;
}

/** The most a job waits for the start beyond its own budget: a start that hangs must not hold instances. */
export const MAX_DRIVER_WAIT_MS = 10 * 60_000;

/** Nothing is starting (tests, the OpenAPI generator, PROVISIONER=none). */
export const NOTHING_STARTING: DriverStartup = {
  mayProvide: () => false,
  ended: async () => {},
  waitedSince: () => 0,
};

export interface TrackedDriverStartup extends DriverStartup {
  /** The start has ended, successfully or not (what failed shows in the driver's capabilities). */
  end(): void;
}

/** A start beginning now, that may bring up `types`. Call `end()` once it has ended. */
export function trackDriverStart(types: readonly InstanceType[], now = Date.now): TrackedDriverStartup {
  const began = now();
  let endedAt: number | undefined;
  let markEnded = () => {};
  const whenEnded = new Promise<void>((resolve) => {
    markEnded = resolve;
  });
  return {
    mayProvide: (type) => endedAt === undefined && types.includes(type),
    ended(signal) {
      if (endedAt !== undefined) return Promise.resolve();
      if (!signal) return whenEnded;
      signal.throwIfAborted();
      return new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        void whenEnded.then(() => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        });
      });
    },
    waitedSince(askedAt) {
      const from = Math.max(askedAt, began);
      return Math.min(MAX_DRIVER_WAIT_MS, Math.max(0, (endedAt ?? now()) - from));
    },
    end() {
      if (endedAt !== undefined) return;
      endedAt = now();
      markEnded();
    },
  };
}
