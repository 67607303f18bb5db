import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import { fileSize, logTail } from '../../logTail.ts';
import { ErpRunError, type ErpRunSpec } from '../runtime.ts';
import { containerLogLines, tolerating } from './engine.ts';
import { oneShotContainer, type Confinement, type NetworkMode } from './erpContainer.ts';
import type { ErpImage } from './erpImage.ts';

const TAIL_LINES = 20;

/**
 * Runs the ERP once in a throw-away container (`forja-<slug>-run-<random>`), waits for it and
 * removes it. A non-zero exit rejects with ErpRunError carrying the exit code and the last lines
 * the ERP wrote to its log file during this run, then what the container printed (usage errors
 * come before logging is set up). An abort kills the container.
 */
export async function runOneShot(docker: Docker, spec: ErpRunSpec, image: ErpImage, mode: NetworkMode, args: string[], confinement: Confinement, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  const what = `${[...image.command, ...args].join(' ')} (image ${image.ref})`;
  const logStart = fileSize(spec.logFile);
  const name = `forja-${spec.slug}-run-${randomBytes(4).toString('hex')}`;
  const container = await docker.createContainer(oneShotContainer(spec, image, mode, name, args, confinement));
  const kill = () => void container.kill().catch(() => undefined);
  signal?.addEventListener('abort', kill, { once: true });
  try {
    try {
      await container.start();
    } catch (error) {
      throw new ErpRunError(`${what}: cannot start: ${(error as Error).message}`, null, []);
    }
    if (signal?.aborted) kill();
    const { StatusCode: code } = (await container.wait()) as { StatusCode: number };
    signal?.throwIfAborted();
    if (code === 0) return;
    const output = containerLogLines(await container.logs({ stdout: true, stderr: true, follow: false, tail: TAIL_LINES }));
    throw new ErpRunError(`${what} exited with code ${code}`, code, [...logTail(spec.logFile, { from: logStart }), ...output].slice(-TAIL_LINES));
  } finally {
    signal?.removeEventListener('abort', kill);
    await tolerating([404, 409], () => container.remove({ force: true }));
  }
}
