import { expect } from 'chai';
import fc from 'fast-check';
import { databaseName, suffixedName } from '#shared/instanceDatabase/databaseName.ts';
import {
  asideDatabaseName,
  checkpointDatabaseName,
  LEGACY_WORKING_DATABASE_PREFIX,
  migrationRuntimeName,
  reservedInstanceSlug,
  workingDatabaseName,
  workingInstanceSlug,
} from '#shared/instanceDatabase/reservedNames.ts';
import { MONITORING_ROLE } from '#services/monitoring/erpDatabaseSource.ts';

/** The slug rule of instances, projects and migrations (schemas/events/*Requested, *Created). */
const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;
/** Parts that make the kinds' prefixes and suffixes likely, beside random ones long enough to need a hash. */
const part = fc.oneof(fc.constantFrom('mig', 'migrun', 'forja', 'forjamig', 'forjack', 'forjatmp', 'ck', 'new', 'r1', '1', 'monitoring', 'a'.repeat(30)), fc.stringMatching(/^[a-z0-9]{1,20}$/));
const slug = fc
  .array(part, { minLength: 1, maxLength: 6 })
  .map((parts) => parts.join('-'))
  .filter((text) => text.length <= 64);
/** Instance slugs as databaseName takes them (`[a-z0-9-]{1,64}`): laxer than the rule, `--` and edge dashes included. */
const laxSlug = fc
  .tuple(fc.array(part, { minLength: 1, maxLength: 6 }), fc.array(fc.constantFrom('-', '--'), { minLength: 6, maxLength: 6 }), fc.boolean())
  .map(([parts, separators, dashes]) => `${dashes ? '-' : ''}${parts.map((text, index) => (index === 0 ? text : `${separators[index]!}${text}`)).join('')}${dashes ? '-' : ''}`)
  .filter((text) => text.length <= 64);
/** An instance slug built from the migration's slug and run the way an attacker (or chance) would: issue 24's `mig-acme` and `acme-r1`, and the like. */
const lookalike = (migration: string, number: number): string[] =>
  [`mig-${migration}`, `${migration}-r${number}`, `migrun-${migration}-${number}`, `${migration}-ck`, `${migration}-ck-new`, `mig-${migration}-ck`, `forjamig-${migration}`, `ck-${migration}`, migration].filter((text) => text.length <= 64);
const run = fc.integer({ min: 1, max: 1_000_000 });

const legacyWorkingDatabase = (migration: string) => `${LEGACY_WORKING_DATABASE_PREFIX}${migration.replaceAll('-', '_')}`;

/** Every name each kind derives from an instance slug `instance`, a migration slug `migration` and a run number. */
function namesByKind(instance: string, migration: string, number: number): Record<string, string[]> {
  const working = workingInstanceSlug(migration, number);
  const legacyCheckpoint = suffixedName(legacyWorkingDatabase(migration), '_ck');
  return {
    // A user's instance: the control-plane refuses reserved slugs, so only the others exist.
    'instance database': reservedInstanceSlug(instance) === null ? [databaseName(instance)] : [],
    'working instance database': [databaseName(working)],
    'working database': [workingDatabaseName(migration)],
    checkpoint: [checkpointDatabaseName(migration)],
    'snapshot aside': [asideDatabaseName(checkpointDatabaseName(migration)), asideDatabaseName(legacyCheckpoint)],
    // Migrations created before issue 24 keep these: no instance a user can create now may have them.
    'legacy working database': [legacyWorkingDatabase(migration), legacyCheckpoint],
    'monitoring role': [MONITORING_ROLE],
  };
}

/** Runtime names (containers, networks, locks): an instance's slug and a migration's ERP runs. */
function runtimeNamesByKind(instance: string, migration: string, number: number): Record<string, string[]> {
  return {
    instance: reservedInstanceSlug(instance) === null ? [instance] : [],
    'working instance': [workingInstanceSlug(migration, number)],
    'migration run': [migrationRuntimeName(migration)],
  };
}

function expectDisjoint(kinds: Record<string, string[]>): void {
  const owner = new Map<string, string>();
  for (const [kind, names] of Object.entries(kinds)) {
    for (const name of names) {
      const other = owner.get(name);
      if (other !== undefined && other !== kind) expect.fail(`${kind} and ${other} are both named ${name}`);
      owner.set(name, kind);
    }
  }
}

describe('reserved names: no kind of database, role or runtime name can be another kind’s', () => {
  it('separates the kinds for any slugs and run number, long names that get hashed and instance slugs with `--` included', () => {
    fc.assert(
      fc.property(fc.oneof(slug, laxSlug), slug, run, (instance, migration, number) => {
        expectDisjoint(namesByKind(instance, migration, number));
        expectDisjoint(runtimeNamesByKind(instance, migration, number));
      }),
      { numRuns: 3000 },
    );
  });

  it('separates them when the instance’s slug is made from the migration’s (mig-acme, acme-r1 and the like)', () => {
    fc.assert(
      fc.property(slug, run, (migration, number) => {
        for (const instance of lookalike(migration, number)) {
          expectDisjoint(namesByKind(instance, migration, number));
          expectDisjoint(runtimeNamesByKind(instance, migration, number));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('fits every database name in 63 bytes and makes working instances valid, reserved slugs', () => {
    fc.assert(
      fc.property(slug, run, (migration, number) => {
        for (const name of [workingDatabaseName(migration), checkpointDatabaseName(migration), asideDatabaseName(checkpointDatabaseName(migration)), migrationRuntimeName(migration)]) {
          expect(Buffer.byteLength(name), name).to.be.at.most(63);
        }
        const working = workingInstanceSlug(migration, number);
        expect(working).to.match(SLUG).and.have.length.at.most(60);
        expect(reservedInstanceSlug(working)).to.match(/reserved for the working instances of migrations/);
        expect(migrationRuntimeName(migration)).not.to.match(SLUG);
      }),
      { numRuns: 2000 },
    );
  });

  it('tells long migrations sharing a head apart by a hash', () => {
    const head = 'a'.repeat(50);
    expect(workingInstanceSlug(`${head}-one`, 1)).not.to.equal(workingInstanceSlug(`${head}-two`, 1));
    expect(workingDatabaseName(`${head}-${'b'.repeat(10)}-one`)).not.to.equal(workingDatabaseName(`${head}-${'b'.repeat(10)}-two`));
  });

  it('names the audit’s cases apart: instance mig-acme and migration acme, instance acme-r1 and run 1 of acme', () => {
    expect(databaseName('mig-acme')).to.equal('forja_mig_acme');
    expect(workingDatabaseName('acme')).to.equal('forjamig_acme');
    expect(checkpointDatabaseName('acme')).to.equal('forjack_acme');
    expect(workingInstanceSlug('acme', 1)).to.equal('migrun-acme-1');
    expect(migrationRuntimeName('acme')).to.equal('mig_acme');
  });

  it('refuses the slugs of other kinds’ names to instances a user creates, saying why', () => {
    expect(reservedInstanceSlug('migrun-acme-1')).to.match(/reserved for the working instances of migrations/);
    expect(reservedInstanceSlug('mig-acme')).to.match(/working databases of older migrations/);
    expect(reservedInstanceSlug('monitoring')).to.match(/monitoring exporter/);
    for (const free of ['acme-r1', 'mig', 'migration-acme', 'migrations-acme-r1', 'monitoring-2']) expect(reservedInstanceSlug(free), free).to.equal(null);
  });
});
