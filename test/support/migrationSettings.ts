import type { MigrationSettings } from '#services/migrations/domain/migration.ts';

/** A community 16.0 → 17.0 migration draft's settings for domain tests, with what the test cares about overridden. */
export const migrationSettings = (overrides: Partial<MigrationSettings> = {}): MigrationSettings => ({
  slug: 'acme-17',
  name: 'Acme to 17',
  origin: '16.0',
  destination: '17.0',
  flavor: 'community',
  engine: 'openupgrade',
  purpose: 'test',
  contract: null,
  notifyTo: [],
  input: { mode: 'pull', pullUrl: 'https://files.example.com/acme.dump' },
  recipe: { key: 'community.16.0-17.0', sha256: 'a'.repeat(64), text: 'format: 1' },
  workingDatabase: 'forja_mig_acme_17',
  ...overrides,
});
