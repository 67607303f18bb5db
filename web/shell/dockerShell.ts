import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import type { SystemUser } from '#shared/local/systemUser.ts';
import type { TerminalSize } from './shellMessages.ts';
import { ShellUnavailable, type Terminal } from './terminal.ts';

/** The labels the executor's docker runtime puts on an instance's ERP container (its erpContainer.ts LABELS). */
const INSTANCE_LABEL = 'forja.instance';
const ROLE_LABEL = 'forja.role';

/** bash where the image has it, sh otherwise, in the container's working folder. */
const SHELL = ['/bin/sh', '-c', 'if command -v bash >/dev/null 2>&1; then exec bash -l; else exec sh -l; fi'];

/**
 * A shell inside the instance's running ERP container: an exec with a TTY (the engine's pty), so
 * resizing is `exec.resize`. The container's environment (its database variables) comes with it.
 * Web talks to the engine itself: the executor's runtime is another process's code. The exec runs
 * as `account`'s uid:gid, named explicitly (an exec's default is the image's user, root in many);
 * null (web is not root, nor are instances' accounts made): the container's own user.
 */
export async function openDockerShell(docker: Docker, slug: string, size: TerminalSize, recordOpened: () => Promise<void>, account: SystemUser | null = null): Promise<Terminal> {
  let containers: Docker.ContainerInfo[];
  try {
    containers = await docker.listContainers({ filters: { label: [`${INSTANCE_LABEL}=${slug}`, `${ROLE_LABEL}=erp`], status: ['running'] } });
  } catch (error) {
    throw new ShellUnavailable(`The container engine does not answer (${(error as Error).message}); tell your administrator.`);
  }
  const found = containers[0];
  if (!found) throw new ShellUnavailable(`The container of ${slug} is not running: start the instance, then open the shell again.`);
  await recordOpened();
  const exec = await docker.getContainer(found.Id).exec({ Cmd: SHELL, AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: true, Env: ['TERM=xterm-256color'], ...(account ? { User: `${account.uid}:${account.gid}` } : {}) });
  const stream = (await exec.start({ hijack: true, stdin: true, Tty: true })) as Duplex;
  // The exec's TTY exists once it started; a resize before that is refused by the engine.
  await exec.resize({ h: size.rows, w: size.cols }).catch(() => {});
  let exited = false;
  const exitListeners: Array<(code: number | null) => void> = [];
  const exit = () => {
    if (exited) return;
    exited = true;
    exec.inspect().then(
      (info) => exitListeners.forEach((listener) => listener(info.ExitCode ?? null)),
      () => exitListeners.forEach((listener) => listener(null)),
    );
  };
  stream.on('end', exit);
  stream.on('close', exit);
  stream.on('error', exit);
  return {
    write: (data) => {
      if (!exited) stream.write(data);
    },
    resize: (cols, rows) => {
      if (!exited) exec.resize({ h: rows, w: cols }).catch(() => {});
    },
    onData: (listener) => stream.on('data', listener),
    pause: () => stream.pause(),
    resume: () => stream.resume(),
    onExit: (listener) => exitListeners.push(listener),
    // Closing the attached stream closes the exec's pty: the shell gets its hang-up.
    close: () => {
      stream.end();
      stream.destroy();
    },
  };
}
