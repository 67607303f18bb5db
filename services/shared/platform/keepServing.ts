import type { Logger } from '../log.ts';

let installed = false;

/**
 * The last resort for an error nothing caught: log it and keep serving. Without it, one request
 * whose stream listener throws ends every process `npm start` runs in this Node process
 * (control-plane, web, executor, padrón), cutting every other user off. Errors should be caught
 * where they happen; reaching this is a bug to fix, which is why it logs at `fatal`.
 */
export function keepServingOnUncaughtErrors(logger: Logger): void {
  if (installed) return;
  installed = true;
  process.on('uncaughtException', (error, origin) => logger.fatal({ err: error, origin }, 'uncaught error: logged, still serving'));
  process.on('unhandledRejection', (reason) => logger.fatal({ err: reason }, 'unhandled promise rejection: logged, still serving'));
}
