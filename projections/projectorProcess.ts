import { orExit } from '#shared/config/config.ts';
import type { StartProcess } from '#shared/platform/process.ts';
import { loadNotificationSettings } from '#services/notifications/notifications.settings.ts';
import { noticeWiring, type NoticeWiring } from './notices/noticeWiring.ts';
import { startProjector } from './projector.ts';

/**
 * The projector as a Forja process: every projection and reactor, with lag logged when it grows.
 * `notices` overrides the notice settings (tests point them at their own SMTP server).
 */
export function projectorStarter(notices: Partial<NoticeWiring> = {}): StartProcess {
  return async (infra, config, logger) => {
    const settings = orExit(() => loadNotificationSettings());
    const projector = await startProjector({
      db: infra.db,
      store: infra.store,
      bus: infra.bus,
      connectionString: infra.databaseUrl,
      logger: logger.child({ process: 'projector' }),
      batchSize: config.FORJA_PROJECTION_BATCH,
      retryMs: config.FORJA_PROJECTION_POLL_MS,
      notices: { ...noticeWiring(settings, config), ...notices },
    });
    return {
      name: 'projector',
      describe: () => [`${projector.runners.length} runners: ${projector.runners.map((runner) => runner.name).join(', ')}`, `notices to ${projector.mail}`],
      stop: () => projector.stop(),
    };
  };
}

export const startProjectorProcess: StartProcess = projectorStarter();
