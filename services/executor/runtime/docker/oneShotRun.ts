import type Docker from 'dockerode';
import { abortError } from '../../abortError.ts';
import { fileSize, logTail } from '../../logTail.ts';
import { ErpRunError, type ErpRunSpec } from '../runtime.ts';
import { followOutput } from './containerLog.ts';
import { tolerating } from './engine.ts';
import { oneShotContainer, oneShotContainerName, type Confinement, type NetworkMode } from './erpContainer.ts';
import type { ErpImage } from './erpImage.ts';

const TAIL_LINES = 20;
/** How long an aborted run gets between SIGTERM and SIGKILL. */
const ABORT_GRACE_SECONDS = 3;

/** Removes the instance's one-shot container, running or not: one an earlier executor left behind. */
export function removeOneShotContainer(docker: Docker, slug: string): Promise<void> {
  return tolerating([404, 409], () => docker.getContainer(oneShotContainerName(slug)).remove({ force: true, v: true }));
}

/**
 * Runs the ERP once in a throw-away container (`forja-<slug>-oneshot`, replacing one an earlier
 * executor left behind), waits for it and removes it. A non-zero exit rejects with ErpRunError
 * carrying the exit code and the last lines of what it printed during this run, which is followed
 * live into the instance's log (containerLog.ts). An abort stops the
 * container (SIGTERM, SIGKILL after 3 s) and rejects with the abort's reason.
 */
export async function runOneShot(docker: Docker, spec: ErpRunSpec, image: ErpImage, mode: NetworkMode, args: string[], confinement: Confinement, signal?: AbortSignal, subcommand?: string): Promise<void> {
  const what = `${[...image.command, ...(subcommand ? [subcommand] : []), ...args].join(' ')} (image ${image.ref})`;
  if (signal?.aborted) throw abortError(signal, what);
  const logStart = fileSize(spec.root, spec.logFile);
  await removeOneShotContainer(docker, spec.slug);
  const container = await docker.createContainer(oneShotContainer(spec, image, mode, oneShotContainerName(spec.slug), args, confinement, subcommand));
  const kill = () => void tolerating([304, 404, 409], () => container.stop({ t: ABORT_GRACE_SECONDS })).catch(() => undefined);
  signal?.addEventListener('abort', kill, { once: true });
  try {
    try {
      await container.start();
    } catch (error) {
      throw new ErpRunError(`${what}: cannot start: ${(error as Error).message}`, null, []);
    }
    const output = await followOutput(docker, container, spec, true);
    if (signal?.aborted) kill();
    const { StatusCode: code } = (await container.wait()) as { StatusCode: number };
    // The output stream ends with the container; a bounded wait, so an engine that keeps it open cannot hold the step.
    await Promise.race([output.finished, new Promise((later) => setTimeout(later, 5_000).unref())]);
    output.stop();
    if (signal?.aborted) throw abortError(signal, what);
    if (code === 0) return;
    throw new ErpRunError(`${what} exited with code ${code}`, code, logTail(spec.root, spec.logFile, { from: logStart, count: TAIL_LINES }));
  } finally {
    signal?.removeEventListener('abort', kill);
    await tolerating([404, 409], () => container.remove({ force: true, v: true }));
  }
}
