import { getProject } from '#projections/projects/projectDetail.ts';
import { projectDetailProjection } from '#projections/projects/projectDetail.ts';
import type { ProjectEvent } from '#services/projects/domain/project.ts';
import { event, projectionSpec } from '#test/support/projectionSpec.ts';

describe('project_detail read model', () => {
  const spec = projectionSpec(projectDetailProjection);
  const stream = 'project-acme';
  const created = event<ProjectEvent>({ type: 'ProjectCreated', data: { slug: 'acme', name: 'Acme', webhookNonce: 'nonce-1' } }, { stream, metadata: { actor: 'user-ana', at: '2026-11-22T10:00:00.000Z' } });
  const repositorySet = event<ProjectEvent>({ type: 'ProjectRepositorySet', data: { slug: 'acme', gitRepo: 'git@github.com:acme/erp.git' } }, { stream, metadata: { actor: 'user-ben', at: '2026-11-22T11:00:00.000Z' } });
  const rotated = event<ProjectEvent>({ type: 'ProjectWebhookRotated', data: { slug: 'acme', webhookNonce: 'nonce-2' } }, { stream, metadata: { actor: 'user-cid', at: '2026-11-22T12:00:00.000Z' } });
  const deleted = event<ProjectEvent>({ type: 'ProjectDeleted', data: { slug: 'acme', name: 'Acme' } }, { stream, metadata: { actor: 'user-ana', at: '2026-11-22T13:00:00.000Z' } });
  const acme = {
    slug: 'acme',
    name: 'Acme',
    git_repo: null,
    webhook_nonce: 'nonce-1',
    created_at: new Date('2026-11-22T10:00:00.000Z'),
    created_by: 'user-ana',
    updated_at: new Date('2026-11-22T10:00:00.000Z'),
    updated_by: 'user-ana',
  };

  it('shows a created project, by whom and when', async () => {
    await spec.when([created]).then((db) => getProject(db, 'acme'), acme);
  });

  it('shows the repository and who set it last', async () => {
    await spec
      .given([created])
      .when([repositorySet])
      .then((db) => getProject(db, 'acme'), { ...acme, git_repo: 'git@github.com:acme/erp.git', updated_at: new Date('2026-11-22T11:00:00.000Z'), updated_by: 'user-ben' });
  });

  it('keeps the rotated push hook nonce', async () => {
    await spec
      .given([created, repositorySet])
      .when([rotated])
      .then((db) => getProject(db, 'acme'), { ...acme, git_repo: 'git@github.com:acme/erp.git', webhook_nonce: 'nonce-2', updated_at: new Date('2026-11-22T12:00:00.000Z'), updated_by: 'user-cid' });
  });

  it('forgets a deleted project, and starts afresh when its slug is created again', async () => {
    await spec.given([created, repositorySet]).when([deleted]).then((db) => getProject(db, 'acme'), undefined);
    const again = event<ProjectEvent>({ type: 'ProjectCreated', data: { slug: 'acme', name: 'Acme Two' } }, { stream, metadata: { actor: 'user-ben', at: '2026-11-22T14:00:00.000Z' } });
    const fresh = { ...acme, name: 'Acme Two', webhook_nonce: null, created_at: new Date('2026-11-22T14:00:00.000Z'), created_by: 'user-ben', updated_at: new Date('2026-11-22T14:00:00.000Z'), updated_by: 'user-ben' };
    await spec.given([created, repositorySet, deleted]).when([again]).then((db) => getProject(db, 'acme'), fresh);
  });

  it('replays twice to identical rows', async () => {
    const other = event<ProjectEvent>({ type: 'ProjectCreated', data: { slug: 'beta', name: 'Beta' } }, { stream: 'project-beta' });
    await spec.given([created, other, repositorySet]).when([rotated, deleted, created]).replayTwice();
  });
});
