import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { request } from 'node:http';
import { createFsBlobStore } from '#shared/blobs/fsBlobStore.ts';
import type { ForjaProcess, StartProcess } from '#shared/platform/process.ts';
import { acceptingOnLoopback } from '#shared/local/acceptingOnLoopback.ts';
import { startChildTool } from '#shared/local/childTool.ts';
import { freePort } from '#shared/local/freePort.ts';
import { mailCatcherSocketPath } from '#shared/local/mailCatcherSocket.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { prepareMaildevFolder } from './maildevFolder.ts';
import { startSmtpFront } from './smtpFront.ts';

/** The path web proxies the catcher's UI under; maildev serves its pages and API below it. */
export const MAIL_CATCHER_PATH = '/mails';
const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 20_000;

const maildevBin = createRequire(import.meta.url).resolve('maildev/bin/maildev');

/** Whether maildev's web UI answers on its socket (its health check, which needs no login). */
function answersOnSocket(socketPath: string): Promise<boolean> {
  return new Promise((resolveAnswer) => {
    const req = request({ socketPath, path: `${MAIL_CATCHER_PATH}/healthz`, timeout: 1_000 }, (res) => {
      res.resume();
      resolveAnswer(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolveAnswer(false));
    req.end();
  });
}

/**
 * The mail catcher: Forja's SMTP front on FORJA_MAILCATCHER_SMTP_PORT (smtpFront.ts), which keeps
 * each instance's mail for that instance, and maildev (npm) in a child process behind it, where
 * every message also goes for the administrators' view of all mail. maildev's own SMTP listens on a
 * private port and takes only the front's per-start login; its web UI and live feed listen on a unix
 * socket in its own folder (maildevFolder.ts), which web alone reaches: no local process reads the
 * caught mail. A child and not a library: maildev keeps its servers in module state and exits the
 * process on SIGTERM.
 */
export const startMailCatcherProcess: StartProcess = async (_infra, config, logger) => {
  if (!config.FORJA_MAILCATCHER) return { name: 'mail-catcher', describe: () => ['off (FORJA_MAILCATCHER=false)'], stop: async () => {} };
  const smtpPort = config.FORJA_MAILCATCHER_SMTP_PORT;
  if (await acceptingOnLoopback(smtpPort)) throw new Error(`mail catcher: port ${smtpPort} on ${HOST} is already in use: stop what holds it or set FORJA_MAILCATCHER_SMTP_PORT (or FORJA_MAILCATCHER=false)`);
  const folder = prepareMaildevFolder(config.FORJA_DATA_DIR);
  const socketPath = mailCatcherSocketPath(config.FORJA_DATA_DIR);
  const relay = { port: await freePort(), user: 'forja', pass: randomBytes(24).toString('base64url') };
  // Only PATH and HOME: maildev also reads MAILDEV_* variables, which must not change what Forja asked for.
  // The relay's password goes in MAILDEV_INCOMING_PASS, not on the command line any local user reads in ps.
  const tool = await startChildTool({
    label: 'mail catcher (maildev)',
    command: process.execPath,
    args: [maildevBin, '--ip', HOST, '--smtp', String(relay.port), '--web', socketPath, '--base-pathname', MAIL_CATCHER_PATH, '--incoming-user', relay.user, '--mail-directory', folder.mailDir],
    env: { PATH: process.env['PATH'] ?? '', HOME: folder.dir, MAILDEV_INCOMING_PASS: relay.pass },
    cwd: folder.dir,
    ...(folder.user ? { uid: folder.user.uid, gid: folder.user.gid } : {}),
    ready: async () => (await acceptingOnLoopback(relay.port)) && (await answersOnSocket(socketPath)),
    readyTimeoutMs: READY_TIMEOUT_MS,
    logger: logger.child({ process: 'mail-catcher' }),
  });
  let front;
  try {
    front = await startSmtpFront({ host: HOST, port: smtpPort, masterKey: resolvePlatformSecrets(config).masterKey, blobs: createFsBlobStore(config.FORJA_DATA_DIR), relay, logger: logger.child({ process: 'mail-catcher' }) });
  } catch (error) {
    await tool.stop();
    throw error;
  }
  const process_: ForjaProcess = {
    name: 'mail-catcher',
    describe: () => [`SMTP ${HOST}:${smtpPort}: each instance's mail kept for it (its mailbox login), all of it in maildev${folder.user ? ` (as ${folder.user.name})` : ''} for administrators at ${MAIL_CATCHER_PATH}/`],
    stop: async () => {
      await front.close();
      await tool.stop();
    },
  };
  return process_;
};
