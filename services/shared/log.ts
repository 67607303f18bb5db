import { pino, type Logger } from 'pino';
import type { Config } from './config/config.ts';

export type { Logger } from 'pino';

/**
 * pino, pretty in a terminal and JSON otherwise (or as LOG_FORMAT says). Pretty printing runs in
 * pino's worker thread so it never slows the caller.
 */
export function createLogger(config: Pick<Config, 'LOG_LEVEL' | 'LOG_FORMAT'>, name = 'forja'): Logger {
  const pretty = config.LOG_FORMAT === 'pretty' || (config.LOG_FORMAT === 'auto' && process.stdout.isTTY === true);
  return pino({
    name,
    level: config.LOG_LEVEL,
    ...(pretty ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } } : {}),
  });
}

/** A logger that writes nothing, for tests and benchmarks. */
export const silentLogger: Logger = pino({ level: 'silent' });
