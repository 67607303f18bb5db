import { chownSync, mkdirSync, chmodSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ForjaProcess, StartProcess } from '#shared/platform/process.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { acceptingOnLoopback } from '#shared/local/acceptingOnLoopback.ts';
import { startChildTool } from '#shared/local/childTool.ts';
import { ensureSystemUser } from '#shared/local/systemUser.ts';
import { TOOL_USER, toolPassword } from '#shared/local/toolSecrets.ts';

/** The path web proxies the catcher's UI under; maildev serves its pages and API below it. */
export const MAIL_CATCHER_PATH = '/mails';
/** The account maildev runs as when Forja runs as root: caught mail is out of every instance's reach. */
export const MAIL_CATCHER_OS_USER = 'forja-mail';
const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 20_000;

const maildevBin = createRequire(import.meta.url).resolve('maildev/bin/maildev');

/** `<data>/mailcatcher/mail`, 0700 and owned by maildev's account (as root); maildev's default is a world-readable /tmp folder. */
function mailDirectory(dataDir: string): { dir: string; account: { uid?: number; gid?: number } } {
  const parent = join(dataDir, 'mailcatcher');
  const dir = join(parent, 'mail');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(parent, 0o700);
  chmodSync(dir, 0o700);
  if (process.getuid?.() !== 0) return { dir, account: {} };
  const user = ensureSystemUser(MAIL_CATCHER_OS_USER);
  chownSync(parent, user.uid, user.gid);
  chownSync(dir, user.uid, user.gid);
  return { dir, account: { uid: user.uid, gid: user.gid } };
}

/**
 * maildev (npm) in a child process, SMTP and web UI on 127.0.0.1 only, its UI behind a password
 * only web knows (web adds it), its mail in a private folder. A child and not a library: maildev
 * keeps its servers in module state and exits the process on SIGTERM.
 */
export const startMailCatcherProcess: StartProcess = async (_infra, config, logger) => {
  if (!config.FORJA_MAILCATCHER) return { name: 'mail-catcher', describe: () => ['off (FORJA_MAILCATCHER=false)'], stop: async () => {} };
  const smtpPort = config.FORJA_MAILCATCHER_SMTP_PORT;
  const webPort = config.FORJA_MAILCATCHER_WEB_PORT;
  for (const port of [smtpPort, webPort]) {
    if (await acceptingOnLoopback(port)) throw new Error(`mail catcher: port ${port} on ${HOST} is already in use: stop what holds it or set FORJA_MAILCATCHER_SMTP_PORT / FORJA_MAILCATCHER_WEB_PORT (or FORJA_MAILCATCHER=false)`);
  }
  const { dir, account } = mailDirectory(config.FORJA_DATA_DIR);
  const log = logger.child({ process: 'mail-catcher' });
  if (account.uid === undefined) log.warn('not running as root: maildev runs as Forja\'s own account, not as forja-mail');
  // Only PATH, HOME and Forja's own MAILDEV_* settings: maildev reads MAILDEV_* variables, which must
  // not change what Forja asked for. The password goes in the environment, which other accounts cannot read (argv they can).
  const tool = await startChildTool({
    label: 'mail catcher (maildev)',
    command: process.execPath,
    args: [maildevBin, '--ip', HOST, '--smtp', String(smtpPort), '--web', String(webPort), '--base-pathname', MAIL_CATCHER_PATH, '--mail-directory', dir],
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', MAILDEV_WEB_USER: TOOL_USER, MAILDEV_WEB_PASS: toolPassword(resolvePlatformSecrets(config).masterKey, 'mailcatcher') },
    ...account,
    ready: async () => (await acceptingOnLoopback(smtpPort)) && (await acceptingOnLoopback(webPort)),
    readyTimeoutMs: READY_TIMEOUT_MS,
    logger: log,
  });
  const process_: ForjaProcess = {
    name: 'mail-catcher',
    url: `http://${HOST}:${webPort}${MAIL_CATCHER_PATH}`,
    describe: () => [`maildev: SMTP ${HOST}:${smtpPort}, web UI behind a password on ${HOST}:${webPort}, opened from web on the tools origin${account.uid === undefined ? ' (not root: runs as Forja\'s account, not forja-mail)' : ''}`],
    stop: () => tool.stop(),
  };
  return process_;
};
