import { loadConfigOrExit } from '#shared/config/config.ts';
import { createLogger } from '#shared/log.ts';
import { openInfrastructureOrExit } from '#shared/platform/infrastructure.ts';
import { migrateReadModel } from './migrations/index.ts';
import { queuedNotices } from './notices/noticeOutbox.ts';
import { readModelOf } from './readModel.ts';
import { projections } from './registry.ts';

/** `npm run projections:status`: where every projection and reactor stands, and how far behind. */
const config = loadConfigOrExit();
const infra = await openInfrastructureOrExit(config, createLogger(config, 'status'), 'projections:status');
try {
  await migrateReadModel(infra.db);
  const db = readModelOf(infra.db);
  const head = await infra.store.headPosition();
  const stored = await db.selectFrom('checkpoints').select(['name', 'position', 'updated_at']).execute();
  const names = [...new Set([...projections.map((projection) => projection.name), 'work_relay', 'control_relay', 'migration_notices', ...stored.map((row) => row.name)])];
  process.stdout.write(`head of the event feed: ${head}\n`);
  process.stdout.write(`${'runner'.padEnd(24)}${'checkpoint'.padStart(12)}${'lag'.padStart(10)}  last moved\n`);
  for (const name of names) {
    const row = stored.find((candidate) => candidate.name === name);
    const position = row?.position ?? 0;
    const moved = row ? row.updated_at.toISOString() : 'never ran';
    process.stdout.write(`${name.padEnd(24)}${String(position).padStart(12)}${String(head - position).padStart(10)}  ${moved}\n`);
  }
  const queued = await queuedNotices(db);
  const retrying = queued.filter((row) => row.attempts > 0);
  process.stdout.write(`notices waiting to be sent: ${queued.length}${retrying.length > 0 ? ` (${retrying.length} failed at least once; last error: ${retrying.at(-1)!.last_error})` : ''}\n`);
} finally {
  await infra.close();
}
