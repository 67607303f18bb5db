import type { WorkMessage } from '#shared/bus/bus.ts';
import type { BlobStore } from '#shared/blobs/blobStore.ts';
import type { WorkMessageBody } from '#shared/bus/workMessage.ts';
import { purgeInstanceFiles } from '../purgeInstance.ts';
import { runJob, type JobEnvironment } from './jobRunner.ts';

/**
 * The executor's `work.instance` handler: a requested job runs on the workflow kernel; a purged
 * instance has its files (the logs destroy kept) deleted.
 */
export function instanceWork(env: JobEnvironment & { blobs: BlobStore }) {
  return async (message: WorkMessage, signal: AbortSignal): Promise<void> => {
    const body = message.json<WorkMessageBody>();
    if (body.type === 'InstancePurged') {
      await purgeInstanceFiles(env.blobs, (body.data as { slug: string }).slug);
      message.ack();
      return;
    }
    await runJob(message, env, signal);
  };
}
