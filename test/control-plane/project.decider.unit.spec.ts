import { expect } from 'chai';
import { DomainError } from '#shared/decider/decider.ts';
import { gitUrlProblem, sameName, slugify } from '#services/projects/domain/project.ts';
import { projectDecider, RepositoryUrlError, SlugTakenError } from '#services/projects/domain/project.decider.ts';
import { deciderSpec } from '#test/support/deciderSpec.ts';

describe('project decider', () => {
  const spec = deciderSpec(projectDecider);
  const created = { type: 'ProjectCreated', data: { slug: 'acme', name: 'Acme', webhookNonce: 'nonce-1' } } as const;

  it('creates a project on a free slug', () => {
    spec.given([]).when({ type: 'CreateProject', slug: 'acme', name: 'Acme', webhookNonce: 'nonce-1' }).then([created]);
  });

  it('reports a taken slug with the holder’s name, so the caller can tell a duplicate from a collision', () => {
    spec.given([created]).when({ type: 'CreateProject', slug: 'acme', name: 'ACME', webhookNonce: 'nonce-2' }).thenThrows(SlugTakenError, /taken by project Acme/);
  });

  it('creates again on the slug of a deleted project', () => {
    spec
      .given([created, { type: 'ProjectDeleted', data: { slug: 'acme', name: 'Acme' } }])
      .when({ type: 'CreateProject', slug: 'acme', name: 'Acme', webhookNonce: 'nonce-1' })
      .then([created]);
  });

  it('sets the repository, once', () => {
    const set = { type: 'ProjectRepositorySet', data: { slug: 'acme', gitRepo: 'git@github.com:acme/erp.git' } } as const;
    spec.given([created]).when({ type: 'SetProjectRepository', gitRepo: 'git@github.com:acme/erp.git' }).then([set]);
    spec.given([created, set]).when({ type: 'SetProjectRepository', gitRepo: 'git@github.com:acme/erp.git' }).thenNothingHappens();
  });

  it('refuses a repository URL with shell metacharacters', () => {
    spec.given([created]).when({ type: 'SetProjectRepository', gitRepo: 'https://h/x.git;rm -rf /' }).thenThrows(DomainError, /shell metacharacters/);
  });

  it('refuses a repository URL with a password, naming the field (issue 10, item 13)', () => {
    for (const gitRepo of ['ssh://deploy:s3cret@git.example.com/acme/erp.git', 'https://deploy:s3cret@git.example.com/acme/erp.git', 'https://ghp_token@github.com/acme/erp.git', 'deploy:s3cret@git.example.com:acme/erp.git']) {
      spec.given([created]).when({ type: 'SetProjectRepository', gitRepo }).thenThrows(RepositoryUrlError, /^put credentials in an SSH key, not in the URL/);
    }
  });

  it('rotates the push hook nonce of a live project, and of no other (issue 10, item 18)', () => {
    spec.given([created]).when({ type: 'RotateProjectWebhook', webhookNonce: 'nonce-2' }).then([{ type: 'ProjectWebhookRotated', data: { slug: 'acme', webhookNonce: 'nonce-2' } }]);
    spec.given([created, { type: 'ProjectDeleted', data: { slug: 'acme', name: 'Acme' } }]).when({ type: 'RotateProjectWebhook', webhookNonce: 'nonce-2' }).thenThrows(DomainError, /no such project/);
    spec.given([]).when({ type: 'RotateProjectWebhook', webhookNonce: 'nonce-2' }).thenThrows(DomainError, /no such project/);
  });

  it('deletes only when the typed name matches', () => {
    spec.given([created]).when({ type: 'DeleteProject', confirmName: 'Acme' }).then([{ type: 'ProjectDeleted', data: { slug: 'acme', name: 'Acme' } }]);
    spec.given([created]).when({ type: 'DeleteProject', confirmName: 'acme' }).thenThrows(DomainError, /nothing was deleted: type the project name exactly \(Acme\)/);
  });

  it('says a project that does not exist is not found', () => {
    expect(() => projectDecider.decide({ type: 'DeleteProject', confirmName: 'x' }, projectDecider.initialState())).to.throw(DomainError).with.property('kind', 'not_found');
  });
});

describe('project names and repository URLs', () => {
  it('slugifies names', () => {
    expect(slugify('  Cabaña La Blanquita S.R.L. ')).to.equal('cabana-la-blanquita-s-r-l');
    expect(slugify('***')).to.equal('');
    expect(slugify('x'.repeat(80))).to.have.length(48);
  });

  it('compares names ignoring case and repeated spaces', () => {
    expect(sameName('Acme  SA', ' acme sa')).to.equal(true);
    expect(sameName('Acme SA', 'Acme-SA')).to.equal(false);
  });

  for (const ok of ['ssh://git@host.example/acme/erp.git', 'ssh://git@host.example:2222/acme/erp.git', 'git@github.com:acme/erp.git', 'https://gitlab.example:8443/acme/erp.git', 'file:///srv/git/erp.git']) {
    it(`accepts ${ok}`, () => expect(gitUrlProblem(ok)).to.equal(null));
  }
  for (const [bad, why] of [
    ['http://host/x.git', /use an ssh/],
    ['https://host/x.git && curl evil', /shell metacharacters/],
    ['$(reboot)', /shell metacharacters/],
    ['--upload-pack=evil', /may not start with -/],
    ['ftp://host/x', /use an ssh/],
    ['ssh://git:hunter2@host.example/acme/erp.git', /^put credentials in an SSH key, not in the URL/],
    ['ssh://:hunter2@host.example/acme/erp.git', /^put credentials in an SSH key, not in the URL/],
    ['https://user:pass@gitlab.example/acme/erp.git', /^put credentials in an SSH key, not in the URL/],
    ['https://oauth2@gitlab.example/acme/erp.git', /^put credentials in an SSH key, not in the URL/],
    ['git:hunter2@github.com:acme/erp.git', /^put credentials in an SSH key, not in the URL/],
  ] as const) {
    it(`refuses ${bad}`, () => expect(gitUrlProblem(bad)).to.match(why));
  }
});
