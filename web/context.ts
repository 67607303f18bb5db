import type { Kysely } from 'kysely';
import type { ReadModel } from '#projections/readModel.ts';
import type { Environment } from 'nunjucks';
import type { BlobStore } from '#shared/blobs/blobStore.ts';
import type { Metrics } from '#shared/http/metrics.ts';
import type { Logger } from '#shared/log.ts';
import type { ControlPlaneClient } from './controlPlaneClient.ts';
import type { WebSettings } from './web.settings.ts';

/** What web's routes work with. Web reads read models and sends commands; it never touches events. */
export interface WebContext {
  /** Schema `read_model` (projections/readModel.ts). */
  readModel: ReadModel;
  db: Kysely<unknown>;
  controlPlane: ControlPlaneClient;
  settings: WebSettings;
  /** Instance logs and uploads, shared with the executor (FORJA_DATA_DIR on one machine or a shared volume). */
  blobs: BlobStore;
  webhookSecret: string;
  /** Where git hosts reach the control-plane, for the push hook URL. */
  hookBaseUrl: string;
  templates: Environment;
  metrics: Metrics;
  logger: Logger;
}
