// Process lifecycle for long-running entry points: graceful stop on SIGINT /
// SIGTERM, and a fatal error reported as one log line and exit code 1.
import type { Logger } from './log.js';

export function onShutdown(log: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info('stopping', { signal });
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error('error while stopping', { error: err as Error });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

export function runMain(log: Logger, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    log.error('fatal', { error: err instanceof Error ? err.message : String(err) });
    if (process.env.LOG_LEVEL === 'debug' && err instanceof Error) log.debug('stack', { stack: err.stack });
    process.exit(1);
  });
}
