/**
 * Occurrences are written as time passes without a job someone must run: the app writes the dates
 * that entered the horizon once it is ready and then every hour (src/services/recurrence/). The
 * timer does not keep the process alive and stops with the app; a run in progress is awaited on
 * close, so it never writes to a closed storage.
 */
import { type FastifyInstance } from 'fastify';

/** How often the occurrences that entered the horizon are written. */
export const SERIES_EXTENSION_INTERVAL_MS = 60 * 60 * 1000;

export function installSeriesExtension(app: FastifyInstance, extendSeries: () => Promise<number>, intervalMs = SERIES_EXTENSION_INTERVAL_MS): void {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  const run = (): void => {
    if (running !== null) return;
    running = extendSeries()
      .then((written) => {
        if (written > 0) app.log.info({ written }, 'recurrence: occurrences written up to the horizon');
      })
      .catch((error: unknown) => app.log.warn({ err: error }, 'recurrence: writing occurrences failed'))
      .finally(() => {
        running = null;
      });
  };
  app.addHook('onReady', async () => {
    run();
    timer = setInterval(run, intervalMs);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await running;
  });
}
