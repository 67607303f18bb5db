import { createRequire } from 'node:module';
import type { ForjaProcess, StartProcess } from '#shared/platform/process.ts';
import { acceptingOnLoopback } from '#shared/local/acceptingOnLoopback.ts';
import { startChildTool } from '#shared/local/childTool.ts';

/** The path web proxies the catcher's UI under; maildev serves its pages and API below it. */
export const MAIL_CATCHER_PATH = '/mails';
const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 20_000;

const maildevBin = createRequire(import.meta.url).resolve('maildev/bin/maildev');

/**
 * maildev (npm) in a child process, SMTP and web UI on 127.0.0.1 only. A child and not a library:
 * maildev keeps its servers in module state and exits the process on SIGTERM.
 */
export const startMailCatcherProcess: StartProcess = async (_infra, config, logger) => {
  if (!config.FORJA_MAILCATCHER) return { name: 'mail-catcher', describe: () => ['off (FORJA_MAILCATCHER=false)'], stop: async () => {} };
  const smtpPort = config.FORJA_MAILCATCHER_SMTP_PORT;
  const webPort = config.FORJA_MAILCATCHER_WEB_PORT;
  for (const port of [smtpPort, webPort]) {
    if (await acceptingOnLoopback(port)) throw new Error(`mail catcher: port ${port} on ${HOST} is already in use: stop what holds it or set FORJA_MAILCATCHER_SMTP_PORT / FORJA_MAILCATCHER_WEB_PORT (or FORJA_MAILCATCHER=false)`);
  }
  // Only PATH and HOME: maildev also reads MAILDEV_* variables, which must not change what Forja asked for.
  const tool = await startChildTool({
    label: 'mail catcher (maildev)',
    command: process.execPath,
    args: [maildevBin, '--ip', HOST, '--smtp', String(smtpPort), '--web', String(webPort), '--base-pathname', MAIL_CATCHER_PATH],
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '' },
    ready: async () => (await acceptingOnLoopback(smtpPort)) && (await acceptingOnLoopback(webPort)),
    readyTimeoutMs: READY_TIMEOUT_MS,
    logger: logger.child({ process: 'mail-catcher' }),
  });
  const process_: ForjaProcess = {
    name: 'mail-catcher',
    url: `http://${HOST}:${webPort}${MAIL_CATCHER_PATH}`,
    describe: () => [`maildev: SMTP ${HOST}:${smtpPort}, web UI proxied by web at ${MAIL_CATCHER_PATH}/`],
    stop: () => tool.stop(),
  };
  return process_;
};
