import type { Config } from '../config/config.ts';
import { loadConfigOrExit } from '../config/config.ts';
import { createLogger, type Logger } from '../log.ts';
import { openInfrastructureOrExit, type Infrastructure } from './infrastructure.ts';

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

/**
 * Runs processes until SIGINT or SIGTERM, then stops them in reverse order and closes the
 * infrastructure. Used by every main.ts (one process) and by `npm start` (all of them).
 */
export async function runProcesses(title: string, starters: StartProcess[]): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger(config, title);
  const infra = await openInfrastructureOrExit(config, logger, title);
  const running: ForjaProcess[] = [];
  let stopping = false;
  const stop = async (signal: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    for (const proc of running.reverse()) await proc.stop().catch((error: unknown) => logger.error({ err: error, process: proc.name }, 'stop failed'));
    await infra.close();
    logger.info('stopped cleanly');
    process.exit(exitCode);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
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
}
