import { listSshKeys, projectHostKeys, projectSshKeys, sshKeysProjection } from '#projections/sshKeys/sshKeys.ts';
import type { ProjectEvent } from '#services/projects/domain/project.ts';
import type { SshKeyEvent } from '#services/sshKeys/domain/sshKey.ts';
import { event, projectionSpec } from '#test/support/projectionSpec.ts';

const FP = `SHA256:${'Q'.repeat(43)}`;
const HOST_FP = `SHA256:${'H'.repeat(43)}`;

describe('ssh_keys read models: keyring, project keys, pinned host keys', () => {
  const spec = projectionSpec(sshKeysProjection);
  const at = (hour: number) => ({ actor: 'user-ana', at: `2026-11-23T${String(hour).padStart(2, '0')}:00:00.000Z` });
  const facts = { keyId: 4, name: 'deploy', keyType: 'ed25519', bits: 256, fingerprint: FP, publicKey: 'ssh-ed25519 AAAAC3Nza forja:deploy', origin: 'generated' } as const;
  const added = event<SshKeyEvent>({ type: 'SshKeyAdded', data: facts }, { stream: 'sshKey-4', metadata: at(10) });
  const onProject = event<ProjectEvent>({ type: 'ProjectSshKeyAdded', data: { slug: 'acme', keyId: 4, name: 'deploy', fingerprint: FP } }, { stream: 'project-acme', metadata: at(11) });
  const deleted = event<SshKeyEvent>({ type: 'SshKeyDeleted', data: { keyId: 4, name: 'deploy', fingerprint: FP } }, { stream: 'sshKey-4', metadata: at(12) });
  const hostKeys = [{ keyType: 'ssh-ed25519', publicKey: 'AAAAC3Nza', fingerprint: HOST_FP }];
  const pinned = event<ProjectEvent>({ type: 'ProjectHostKeyPinned', data: { slug: 'acme', host: 'git.example.com', port: 2222, keys: hostKeys } }, { stream: 'project-acme', metadata: at(13) });
  const keyRow = { key_id: 4, name: 'deploy', key_type: 'ed25519', bits: 256, fingerprint: FP, public_key: 'ssh-ed25519 AAAAC3Nza forja:deploy', origin: 'generated', created_by: 'user-ana', created_at: new Date(at(10).at) };

  it('lists a key with the projects using it', async () => {
    await spec.when([added, onProject]).then((db) => listSshKeys(db), [{ ...keyRow, created_by_email: null, projects: ['acme'] }]);
  });

  it('keeps a deleted key on its projects, marked, without its public key', async () => {
    await spec.given([added, onProject]).when([deleted]).then((db) => listSshKeys(db), []);
    await spec
      .given([added, onProject])
      .when([deleted])
      .then((db) => projectSshKeys(db, 'acme'), [{ project_slug: 'acme', key_id: 4, name: 'deploy', fingerprint: FP, added_by: 'user-ana', added_at: new Date(at(11).at), key_deleted_at: new Date(at(12).at), key_type: null, public_key: null }]);
  });

  it('drops a key removed from the project', async () => {
    const removed = event<ProjectEvent>({ type: 'ProjectSshKeyRemoved', data: { slug: 'acme', keyId: 4 } }, { stream: 'project-acme', metadata: at(12) });
    await spec.given([added, onProject]).when([removed]).then((db) => projectSshKeys(db, 'acme'), []);
  });

  it('shows pinned host keys until forgotten, and forgets everything of a deleted project', async () => {
    await spec.when([pinned]).then((db) => projectHostKeys(db, 'acme'), [{ project_slug: 'acme', host: 'git.example.com', port: 2222, keys: hostKeys, pinned_by: 'user-ana', pinned_at: new Date(at(13).at) }]);
    const forgotten = event<ProjectEvent>({ type: 'ProjectHostKeyForgotten', data: { slug: 'acme', host: 'git.example.com', port: 2222 } }, { stream: 'project-acme', metadata: at(14) });
    await spec.given([pinned]).when([forgotten]).then((db) => projectHostKeys(db, 'acme'), []);
    const projectDeleted = event<ProjectEvent>({ type: 'ProjectDeleted', data: { slug: 'acme', name: 'Acme' } }, { stream: 'project-acme', metadata: at(15) });
    await spec.given([added, onProject, pinned]).when([projectDeleted]).then((db) => projectSshKeys(db, 'acme'), []);
  });
});
