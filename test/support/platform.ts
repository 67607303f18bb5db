import { tmpdir } from 'node:os';
import { startProjectorProcess } from '#projections/projectorProcess.ts';
import { waitForPosition } from '#projections/runner/waitForPosition.ts';
import { identityService } from '#services/control-plane/identity/identityService.ts';
import { startControlPlaneProcess } from '#services/control-plane/controlPlaneProcess.ts';
import type { Role } from '#shared/auth/roles.ts';
import { loadConfig, type Config } from '#shared/config/config.ts';
import { silentLogger } from '#shared/log.ts';
import { openInfrastructure, type Infrastructure } from '#shared/platform/infrastructure.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import type { ForjaProcess, StartProcess } from '#shared/platform/process.ts';
import { createSecretBox } from '#shared/secrets/secretBox.ts';
import { migrateSecrets, passwordStore } from '#shared/secrets/secrets.ts';
import { createTestDatabase } from './postgres.ts';
import { runDir } from './runDir.ts';

export interface TestPlatform {
  config: Config;
  infra: Infrastructure;
  urls: Record<string, string>;
  /** Registers a user with a password and waits until the users read model shows it. */
  createUser(email: string, role: Role, password?: string, active?: boolean): Promise<void>;
  stop(): Promise<void>;
}

export const PASSWORD = 'correct horse battery';

/**
 * The platform in this process on a fresh test database, HTTP servers on free ports of 127.0.0.1:
 * the projector and control-plane, plus whatever `extra` starts (web, …). `projector` replaces the
 * default one (a test's own notice settings).
 */
export async function startTestPlatform(extra: StartProcess[] = [], env: Record<string, string> = {}, { projector = startProjectorProcess }: { projector?: StartProcess } = {}): Promise<TestPlatform> {
  const databaseUrl = env['DATABASE_URL'] ?? (await createTestDatabase('platform'));
  const config: Config = {
    // Test repositories are file:// bare repositories in temporary folders (bareRepo.ts, runDir.ts).
    ...loadConfig({ DATABASE_URL: databaseUrl, FORJA_DATA_DIR: runDir('test-data'), FORJA_PROJECTION_POLL_MS: '100', FORJA_GIT_FILE_ROOTS: tmpdir(), ...env }),
    FORJA_CONTROL_PLANE_PORT: 0,
    FORJA_WEB_PORT: 0,
    FORJA_PADRON_PORT: 0,
    FORJA_TOOLS_PORT: 0,
  };
  const infra = await openInfrastructure(config, silentLogger);
  const running: ForjaProcess[] = [];
  const urls: Record<string, string> = {};
  for (const start of [projector, startControlPlaneProcess, ...extra]) {
    const proc = await start(infra, { ...config, ...urls.controlPlane ? { FORJA_CONTROL_PLANE_URL: urls.controlPlane } : {} }, silentLogger);
    running.push(proc);
    if (proc.url) urls[proc.name === 'control-plane' ? 'controlPlane' : proc.name] = proc.url;
  }
  await migrateSecrets(infra.db);
  const identity = identityService({
    store: infra.store,
    passwords: passwordStore(infra.db, createSecretBox(resolvePlatformSecrets(config).masterKey)),
    readModel: infra.db.withSchema('read_model'),
  });
  const metadata = () => ({ correlationId: 't', causationId: 't', actor: 'system', at: new Date().toISOString() });
  return {
    config,
    infra,
    urls,
    async createUser(email, role, password = PASSWORD, active = true) {
      await identity.register({ email, role, source: 'cli', password }, metadata());
      const done = active ? undefined : await identity.deactivate(email, metadata());
      await waitForPosition(infra.db.withSchema('read_model'), 'users', done?.lastGlobalPosition ?? (await infra.store.headPosition()));
    },
    async stop() {
      for (const proc of running.reverse()) await proc.stop();
      await infra.close();
    },
  };
}

/** `Authorization: Basic …` for an e-mail and password. */
export function basic(email: string, password = PASSWORD): string {
  return `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`;
}
