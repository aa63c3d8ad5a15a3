export interface IntervalTask {
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

/**
 * Runs `task` now and then every `everyMs`, never two runs at once. A failing run is logged and the
 * next one goes ahead. Used by background.ts for the work main.ts starts (createApp starts nothing).
 */
export function startIntervalTask(
  name: string,
  everyMs: number,
  task: () => Promise<unknown>,
  log: (line: string) => void,
): IntervalTask {
  let running: Promise<void> | undefined;
  const tick = () => {
    running ??= task()
      .then(() => {})
      .catch((err: unknown) => log(`${name} failed: ${err instanceof Error ? err.message : String(err)}`))
      .finally(() => {
        running = undefined;
      });
  };
  tick();
  const timer = setInterval(tick, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
