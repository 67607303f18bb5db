import { migrateReadModel } from '#projections/migrations/index.ts';
import { listen } from '#shared/http/listen.ts';
import type { StartProcess } from '#shared/platform/process.ts';
import { erpActivity } from './erpActivity.ts';
import { erpRouter } from './erpRouter.ts';

/**
 * The ERP router (`npm start`, unless FORJA_ERP_ROUTER=false): `http://<slug>.<domain>:<port>/`
 * reaches the instance `<slug>` wherever its ERP runs now. It lives with the control-plane because
 * a visit may wake an instance, a command the router decides with the event store.
 */
export const startErpRouterProcess: StartProcess = async (infra, config, logger) => {
  const log = logger.child({ process: 'erp-router' });
  if (!config.FORJA_ERP_ROUTER) return { name: 'erp-router', describe: () => ['off (FORJA_ERP_ROUTER=false)'], stop: async () => {} };
  // Run alone, the router may be the first to open the read model.
  await migrateReadModel(infra.db);
  const activity = erpActivity(infra.store, log);
  const router = erpRouter({ readModel: infra.db.withSchema('read_model'), domain: config.FORJA_INSTANCE_DOMAIN, wake: activity.wake, onVisit: activity.visit, logger: log });
  const listening = await listen(router.handle, config.FORJA_HOST, config.FORJA_ERP_ROUTER_PORT);
  listening.server.on('upgrade', router.upgrade);
  const port = new URL(listening.url).port;
  return {
    name: 'erp-router',
    url: listening.url,
    describe: () => [`${listening.url}  each instance at http://<slug>.${config.FORJA_INSTANCE_DOMAIN}:${port}/`],
    stop: () => listening.close(),
  };
};
