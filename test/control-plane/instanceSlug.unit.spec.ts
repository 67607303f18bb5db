import { expect } from 'chai';
import { InstanceInputError } from '#services/control-plane/instances/instanceInputError.ts';
import { instanceSlugCandidates } from '#services/control-plane/instances/instanceSlug.ts';

const first = (project: string, name: string) => instanceSlugCandidates(project, name).next().value;

describe('instance slugs a user may get', () => {
  it('joins project and name, then numbers them', () => {
    expect([...instanceSlugCandidates('acme', 'R1')].slice(0, 2)).to.deep.equal(['acme-r1', 'acme-r1-2']);
  });

  it('refuses (422 on name) a slug kept for migrations, the monitoring role or the ERP check, saying why and what to change', () => {
    const refusal = (project: string, name: string) => {
      try {
        first(project, name);
      } catch (error) {
        expect(error).to.be.instanceOf(InstanceInputError).and.to.include({ field: 'name', kind: 'invalid' });
        return (error as Error).message;
      }
      return expect.fail(`${project}/${name} was not refused`);
    };
    // Issue 24: instance mig-acme had the database of migration acme (forja_mig_acme).
    expect(refusal('mig', 'acme')).to.equal("this instance's slug would be mig-acme, and slugs starting with 'mig-' are reserved: their databases (forja_mig_…) are the working databases of older migrations: choose another project or name");
    expect(refusal('migrun', 'acme 1')).to.match(/^this instance's slug would be migrun-acme-1, and .*reserved for the working instances of migrations/);
    expect(refusal('monitoring', 'Monitoring')).to.match(/monitoring exporter/);
    // Issue 25: npm run erp:check makes a throwaway instance erpcheck-<random>, with its folder, account and database.
    expect(refusal('erpcheck', 'one')).to.match(/^this instance's slug would be erpcheck-one, and .*reserved for the throwaway instances of the ERP conformance check/);
  });
});
