import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import type { ForjaProcess, StartProcess } from '#shared/platform/process.ts';
import { acceptingOnLoopback } from '#shared/local/acceptingOnLoopback.ts';

/** The path web proxies the catcher's UI under; maildev serves its pages and API below it. */
export const MAIL_CATCHER_PATH = '/mails';
const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 5_000;

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
  const log = logger.child({ process: 'mail-catcher' });
  // Only PATH and HOME: maildev also reads MAILDEV_* variables, which must not change what Forja asked for.
  const child = spawn(process.execPath, [maildevBin, '--ip', HOST, '--smtp', String(smtpPort), '--web', String(webPort), '--base-pathname', MAIL_CATCHER_PATH], {
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = `${output}${chunk.toString()}`.slice(-2000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let running = true;
  let stopping = false;
  void exited.then((code) => {
    running = false;
    if (!stopping) log.error({ code, output }, 'the mail catcher stopped on its own');
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!((await acceptingOnLoopback(smtpPort)) && (await acceptingOnLoopback(webPort)))) {
    if (!running || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`mail catcher (maildev) did not start within ${READY_TIMEOUT_MS / 1000} s: ${output.trim() || 'no output'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const process_: ForjaProcess = {
    name: 'mail-catcher',
    url: `http://${HOST}:${webPort}${MAIL_CATCHER_PATH}`,
    describe: () => [`maildev: SMTP ${HOST}:${smtpPort}, web UI proxied by web at ${MAIL_CATCHER_PATH}/`],
    async stop() {
      stopping = true;
      if (!running) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    },
  };
  return process_;
};
