import type { Config } from '../config/config.ts';
import { loadConfigOrExit } from '../config/config.ts';
import { createLogger, type Logger } from '../log.ts';
import { openInfrastructureOrExit, type Infrastructure } from './infrastructure.ts';
import { keepServingOnUncaughtErrors } from './keepServing.ts';

/** A running Forja process (projector, control-plane, …) as `npm start` and its own main.ts see it. */
export interface ForjaProcess {
  name: string;
  /** Base URL, for processes that serve HTTP. */
  url?: string;
  /** One line each: what it runs and where, for the start-up banner. */
  describe(): string[];
  stop(): Promise<void>;
}

export type StartProcess = (infra: Infrastructure, config: Config, logger: Logger) => Promise<ForjaProcess>;

/** Signals after the first that shutdown tolerates; the one after them forces the exit. */
const SIGNALS_BEFORE_FORCE = 2;

/**
 * Runs processes until SIGINT or SIGTERM, then stops them in reverse order and closes the
 * infrastructure. Used by every main.ts (one process) and by `npm start` (all of them).
 *
 * A terminal's Ctrl-C signals the whole foreground process group (npm, tsx, node), and tsx relays
 * it again, so node sees SIGINT twice: shutdown must be idempotent. Later signals during shutdown
 * are logged and ignored, up to the third, which forces the exit (what was not stopped yet stays).
 */
export async function runProcesses(title: string, starters: StartProcess[]): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger(config, title);
  const infra = await openInfrastructureOrExit(config, logger, title);
  const running: ForjaProcess[] = [];
  let shutdown: Promise<void> | null = null;
  let signalsDuringShutdown = 0;
  const stop = (reason: string, exitCode = 0): Promise<void> => {
    shutdown ??= (async () => {
      logger.info({ signal: reason }, 'stopping');
      for (const proc of running.reverse()) await proc.stop().catch((error: unknown) => logger.error({ err: error, process: proc.name }, 'stop failed'));
      await infra.close();
      logger.info('stopped cleanly');
      process.exit(exitCode);
    })();
    return shutdown;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (!shutdown) return void stop(signal);
    signalsDuringShutdown += 1;
    if (signalsDuringShutdown > SIGNALS_BEFORE_FORCE) {
      logger.warn({ signal }, 'forced exit: some services may still be running');
      process.exit(130);
    }
    logger.info({ signal }, signalsDuringShutdown === 1 ? 'already stopping' : 'already stopping; one more signal forces the exit');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    for (const start of starters) running.push(await start(infra, config, logger));
  } catch (error) {
    process.stderr.write(`${title}: cannot start: ${(error as Error).message}\n`);
    await stop('start failure', 1);
    return;
  }
  const lines = [
    `${title} is running`,
    `  database     ${infra.describe.database}`,
    `  event store  ${infra.describe.eventStore}`,
    `  bus          ${infra.describe.bus}`,
    ...running.flatMap((proc) => proc.describe().map((line) => `  ${proc.name.padEnd(12)} ${line}`)),
    '  Ctrl-C stops everything.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  // Only once serving: a start-up that fails should still end the process.
  keepServingOnUncaughtErrors(logger);
}
