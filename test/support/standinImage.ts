import type Docker from 'dockerode';
import { buildStandinImage } from '#services/executor/runtime/docker/standinImage.ts';

const built = new Map<string, Promise<string>>();

/** The ERP stand-in image for `erpVersion` on the test engine, built once per run; resolves with its reference. */
export function testStandinImage(docker: Docker, erpVersion: string): Promise<string> {
  let image = built.get(erpVersion);
  if (!image) {
    image = buildStandinImage(docker, erpVersion).then(({ ref }) => ref);
    built.set(erpVersion, image);
  }
  return image;
}
