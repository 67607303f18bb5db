import { listProjects } from '#projections/projects/projectList.ts';
import { projectListProjection } from '#projections/projects/projectList.ts';
import type { ProjectEvent } from '#services/projects/domain/project.ts';
import { event, projectionSpec, type EventDraft } from '#test/support/projectionSpec.ts';

describe('project_list read model', () => {
  const spec = projectionSpec(projectListProjection);
  const create = (slug: string, name: string): EventDraft => event<ProjectEvent>({ type: 'ProjectCreated', data: { slug, name, webhookNonce: `nonce-${slug}` } }, { stream: `project-${slug}` });
  const projects = [create('zeta', 'Zeta'), create('acme', 'Acme'), create('acme-labs', 'ACME Labs'), create('percent', '100% Cotton')];
  const slugs = (page: { rows: Array<{ slug: string }> }) => page.rows.map((row) => row.slug);

  it('lists projects by name, case-insensitively, in pages', async () => {
    await spec.when(projects).then(async (db) => {
      const first = await listProjects(db, { pageSize: 3 });
      const second = await listProjects(db, { page: 2, pageSize: 3 });
      return { first: slugs(first), second: slugs(second), total: first.total, pageCount: first.pageCount };
    }, { first: ['percent', 'acme', 'acme-labs'], second: ['zeta'], total: 4, pageCount: 2 });
  });

  it('finds names containing the search, taking % and _ literally', async () => {
    await spec.when(projects).then(async (db) => ({ acme: slugs(await listProjects(db, { q: ' aCmE ' })), percent: slugs(await listProjects(db, { q: '%' })) }), { acme: ['acme', 'acme-labs'], percent: ['percent'] });
  });

  it('keeps the repository and the rotated nonce, and drops deleted projects', async () => {
    await spec
      .given(projects)
      .when([
        event<ProjectEvent>({ type: 'ProjectRepositorySet', data: { slug: 'acme', gitRepo: 'https://git.example.com/acme.git' } }, { stream: 'project-acme' }),
        event<ProjectEvent>({ type: 'ProjectWebhookRotated', data: { slug: 'acme', webhookNonce: 'nonce-2' } }, { stream: 'project-acme' }),
        event<ProjectEvent>({ type: 'ProjectDeleted', data: { slug: 'zeta', name: 'Zeta' } }, { stream: 'project-zeta' }),
      ])
      .then(
        async (db) => (await listProjects(db, { q: 'a' })).rows.map(({ slug, git_repo, webhook_nonce }) => ({ slug, git_repo, webhook_nonce })),
        [
          { slug: 'acme', git_repo: 'https://git.example.com/acme.git', webhook_nonce: 'nonce-2' },
          { slug: 'acme-labs', git_repo: null, webhook_nonce: 'nonce-acme-labs' },
        ],
      );
  });

  it('replays twice to identical rows', async () => {
    await spec
      .given(projects)
      .when([
        event<ProjectEvent>({ type: 'ProjectRepositorySet', data: { slug: 'zeta', gitRepo: 'https://git.example.com/zeta.git' } }, { stream: 'project-zeta' }),
        event<ProjectEvent>({ type: 'ProjectDeleted', data: { slug: 'acme', name: 'Acme' } }, { stream: 'project-acme' }),
      ])
      .replayTwice();
  });
});
