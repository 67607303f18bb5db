/**
 * Builds Forja's ERP stand-in as an image on the Docker engine at FORJA_DOCKER_SOCKET, for the
 * docker runtime without a real ERP image: `npm run standin-image -- 17.0 [18.0 …]`. Then run with
 * FORJA_DOCKER_IMAGE='localhost/forja-erp-standin:{version}'. The image runs this checkout's code
 * (bind-mounted read-only), so keep the checkout where it is.
 */
import { loadExecutorSettings } from '#services/executor/executor.settings.ts';
import { openEngine } from '#services/executor/runtime/docker/engine.ts';
import { STANDIN_IMAGE } from '#services/executor/runtime/docker/erpImage.ts';
import { buildStandinImage } from '#services/executor/runtime/docker/standinImage.ts';

try {
  const versions = process.argv.slice(2);
  if (versions.length === 0) throw new Error('usage: npm run standin-image -- VERSION [VERSION …]   (e.g. 17.0)');
  const socket = loadExecutorSettings().FORJA_DOCKER_SOCKET;
  const docker = openEngine(socket);
  for (const version of versions) {
    const { ref, built } = await buildStandinImage(docker, version);
    console.log(`${ref} ${built ? 'built' : 'up to date'} on ${socket}`);
  }
  console.log(`FORJA_DOCKER_IMAGE='${STANDIN_IMAGE}:{version}'`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(2);
}
