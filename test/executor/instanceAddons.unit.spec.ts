import { expect } from 'chai';
import { STANDIN_STANDARD_ADDONS } from '#services/erp-standin/standinPaths.ts';
import { withAddonsPath } from '#services/executor/jobs/instanceAddons.ts';
import type { StepEnvironment } from '#services/executor/jobs/stepEnvironment.ts';
import type { StepFacts } from '#services/instances/domain/instance.ts';

/** Only what withAddonsPath reads: the instance, its spec, the runtime's stand-in answer and the log. */
function stepEnv(facts: StepFacts, lines: string[]): StepEnvironment {
  return {
    instance: { erpVersion: '17.0', edition: 'community', facts },
    spec: { sourceDir: null, addonsPath: facts.addonsPath ?? [] },
    runtime: { usesStandin: () => true },
    erpLog: async (line: string) => void lines.push(line),
  } as unknown as StepEnvironment;
}

describe('the addons path at a start (instanceAddons.ts)', () => {
  it('uses the path the build recorded, and records nothing new', async () => {
    const lines: string[] = [];
    const { spec, facts } = await withAddonsPath(stepEnv({ addonsPath: ['/opt/odoo/17.0/addons'] }, lines));
    expect(spec.addonsPath).to.deep.equal(['/opt/odoo/17.0/addons']);
    expect(facts).to.deep.equal({});
    expect(lines).to.deep.equal([]);
  });

  it('computes, logs and records one for an instance built before Forja recorded addons paths', async () => {
    const lines: string[] = [];
    const { spec, facts } = await withAddonsPath(stepEnv({ commit: 'aaaaaaa1' }, lines));
    expect(spec.addonsPath).to.deep.equal([STANDIN_STANDARD_ADDONS]);
    expect(facts).to.deep.equal({ addonsPath: [STANDIN_STANDARD_ADDONS] });
    expect(lines).to.deep.equal(['addons path (1 folder, in order):', `  ${STANDIN_STANDARD_ADDONS}`]);
  });
});
