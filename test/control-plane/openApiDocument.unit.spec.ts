import { expect } from 'chai';
import { openApiDocument, operations } from '#services/control-plane/http/openapi.ts';
import { derivedErrors, operationIdOf, pathParameters } from '#services/control-plane/http/openapiParts.ts';

type Operation = { operationId?: string; parameters: { name: string; in: string }[]; responses: Record<string, unknown> };
const document = openApiDocument() as { paths: Record<string, Record<string, Operation>> };
const all = Object.entries(document.paths).flatMap(([path, byMethod]) => Object.entries(byMethod).map(([method, operation]) => ({ method, path, operation })));

/** Follows a `#/…` JSON pointer through the document; undefined where it leads nowhere. */
function resolve(pointer: string): unknown {
  return pointer
    .slice(2)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>((node, part) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined), document);
}

describe('the control-plane OpenAPI document', () => {
  it('names every operation with an operationId of its own', () => {
    const ids = all.map(({ operation }) => operation.operationId);
    expect(ids.filter((id) => typeof id !== 'string' || !/^[a-z][A-Za-z0-9]+$/.test(id))).to.deep.equal([]);
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('makes the operationId from the method and the path, /api/v1 left out', () => {
    expect(operationIdOf('get', '/api/v1/projects/{slug}')).to.equal('getProjectsBySlug');
    expect(operationIdOf('post', '/webhooks/git/{project_slug}/{token}')).to.equal('postWebhooksGitByProjectSlugByToken');
    expect(operationIdOf('get', '/internal/migrations/{slug}/history.jsonl')).to.equal('getInternalMigrationsBySlugHistoryJsonl');
    expect(operationIdOf('get', '/health')).to.equal('getHealth');
  });

  it('declares each parameter of every path, in order, and no other', () => {
    const wrong = all.filter(({ path, operation }) => {
      const declared = operation.parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name);
      return JSON.stringify(declared) !== JSON.stringify([...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name));
    });
    expect(wrong.map(({ method, path }) => `${method} ${path}`)).to.deep.equal([]);
    expect(document.paths['/webhooks/git/{project_slug}/{token}']!['post']!.parameters.map((parameter) => parameter.name)).to.deep.equal(['project_slug', 'token']);
  });

  it('documents a path parameter it has no description of as a required string', () => {
    expect(pathParameters('/things/{thing_ref}')).to.deep.equal([{ name: 'thing_ref', in: 'path', required: true, schema: { type: 'string' } }]);
  });

  it('documents 403 wherever the authorization table asks for more than a viewer, and 401 behind credentials', () => {
    expect(Object.keys(document.paths['/api/v1/projects']!['post']!.responses)).to.include.members(['401', '403']);
    expect(Object.keys(document.paths['/api/v1/projects/{slug}/repository']!['put']!.responses)).to.include.members(['401', '403']);
    expect(derivedErrors({ method: 'get', path: '/api/v1/projects', security: 'basic' })).to.deep.equal([401]);
    expect(derivedErrors({ method: 'post', path: '/internal/projects', security: 'service', body: 'ProjectCreate' })).to.deep.equal([401, 403, 413, 415, 422]);
    expect(derivedErrors({ method: 'get', path: '/health', security: 'none' })).to.deep.equal([]);
  });

  it('answers every operation with a default for the unexpected', () => {
    expect(all.filter(({ operation }) => !('default' in operation.responses)).map(({ method, path }) => `${method} ${path}`)).to.deep.equal([]);
  });

  it('resolves every $ref inside the document', () => {
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"([^"]+)"/g)].map(([, pointer]) => pointer!);
    expect(refs.length).to.be.greaterThan(operations.length);
    expect([...new Set(refs)].filter((pointer) => resolve(pointer) === undefined)).to.deep.equal([]);
  });
});
