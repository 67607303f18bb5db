import { existsSync } from 'node:fs';
import type { Logger } from '#shared/log.ts';
import type { UidRange } from '#shared/local/tenantAccount.ts';
import { ERP_VERSIONS } from '#services/instances/domain/instance.ts';
import type { ExecutorSettings } from '../executor.settings.ts';
import { DockerRuntime, dockerRuntimeOptions } from './docker/dockerRuntime.ts';
import { openEngine } from './docker/engine.ts';
import { imageRefFor } from './docker/erpImage.ts';
import { ProcessRuntime } from './process/processRuntime.ts';
import type { Runtime } from './runtime.ts';

/**
 * The runtime FORJA_RUNTIME asks for. `auto` takes docker when the engine answers at
 * FORJA_DOCKER_SOCKET and holds an ERP image for at least one version (Forja never pulls, so an
 * engine without images could run nothing); otherwise the process runtime.
 */
export async function openRuntime(settings: ExecutorSettings, dataDir: string, logger: Logger, uidRange?: UidRange): Promise<Runtime> {
  const processRuntime = () => new ProcessRuntime({ dataDir, command: settings.FORJA_ERP_COMMAND, pip: { indexUrl: settings.FORJA_PIP_INDEX_URL, findLinks: settings.FORJA_PIP_FIND_LINKS }, ...(uidRange ? { uidRange } : {}) });
  if (settings.FORJA_RUNTIME === 'process') return processRuntime();
  if (settings.FORJA_RUNTIME === 'docker') return new DockerRuntime({ ...dockerRuntimeOptions(settings), ...(uidRange ? { uidRange } : {}) });
  const images = await dockerImagesPresent(settings);
  if (images.length === 0) return processRuntime();
  logger.info({ images }, 'docker engine with ERP images found: using the docker runtime');
  return new DockerRuntime({ ...dockerRuntimeOptions(settings), ...(uidRange ? { uidRange } : {}) });
}

async function dockerImagesPresent(settings: ExecutorSettings): Promise<string[]> {
  if (!existsSync(settings.FORJA_DOCKER_SOCKET)) return [];
  const docker = openEngine(settings.FORJA_DOCKER_SOCKET);
  const present: string[] = [];
  for (const version of ERP_VERSIONS) {
    const ref = imageRefFor(settings.FORJA_DOCKER_IMAGE, version);
    const found = await docker
      .getImage(ref)
      .inspect()
      .then(() => true, () => false);
    if (found) present.push(ref);
  }
  return present;
}
