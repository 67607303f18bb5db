import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** A private sshd on 127.0.0.1 for tests (git hosts, the upgrade platform's data node): its host key, config, start and stop. */
export async function newHostKey(file: string): Promise<void> {
  await rm(file, { force: true });
  await rm(`${file}.pub`, { force: true });
  await exec('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'forja-test-host', '-f', file]);
}

export function sshdConfig({ port, hostKey, authorizedKeys }: { port: number; hostKey: string; authorizedKeys: string }): string {
  return [
    `ListenAddress 127.0.0.1`,
    `Port ${port}`,
    `HostKey ${hostKey}`,
    `PidFile none`,
    `AuthorizedKeysFile ${authorizedKeys}`,
    // The key files live in a temporary folder of the test run, and the server runs as whoever runs the tests.
    `StrictModes no`,
    `UsePAM no`,
    `PasswordAuthentication no`,
    `KbdInteractiveAuthentication no`,
    `PubkeyAuthentication yes`,
    `PermitRootLogin prohibit-password`,
    // git's protocol v2 goes through this variable, as with git hosts.
    `AcceptEnv GIT_PROTOCOL`,
    // What a data node that serves rsync needs: no agent, X11 or TCP forwarding.
    `AllowTcpForwarding no`,
    `X11Forwarding no`,
    `LogLevel VERBOSE`,
    '',
  ].join('\n');
}

export async function startSshd(config: string, port: number): Promise<ChildProcess> {
  const sshd = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let said = '';
  sshd.stderr.setEncoding('utf8');
  const listening = new Promise<void>((resolve, reject) => {
    sshd.stderr.on('data', (chunk: string) => {
      said = (said + chunk).slice(-8192);
      if (said.includes(`Server listening on 127.0.0.1 port ${port}`)) resolve();
    });
    sshd.once('exit', (code) => reject(new Error(`test sshd exited (${code ?? 'signal'}) before listening: ${said}`)));
    sshd.once('error', reject);
  });
  const timer = setTimeout(() => sshd.kill(), 10_000);
  try {
    await listening;
  } finally {
    clearTimeout(timer);
  }
  return sshd;
}

export async function stopSshd(sshd: ChildProcess): Promise<void> {
  if (sshd.exitCode !== null || sshd.signalCode !== null) return;
  const exited = once(sshd, 'exit');
  sshd.kill('SIGTERM');
  await exited;
}

