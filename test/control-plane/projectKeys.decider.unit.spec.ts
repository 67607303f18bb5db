import { expect } from 'chai';
import { DomainError } from '#shared/decider/decider.ts';
import { describeErrors, schemaValidator } from '#shared/schemaValidator.ts';
import { HostKeyMismatchError, projectDecider } from '#services/projects/domain/project.decider.ts';
import type { ProjectEvent } from '#services/projects/domain/project.ts';
import { sshKeyDecider } from '#services/sshKeys/domain/sshKey.decider.ts';
import type { SshKeyEvent } from '#services/sshKeys/domain/sshKey.ts';
import { deciderSpec } from '#test/support/deciderSpec.ts';

const FP_A = `SHA256:${'A'.repeat(43)}`;
const FP_B = `SHA256:${'B'.repeat(43)}`;
const ED_A = { keyType: 'ssh-ed25519', publicKey: 'AAAAC3NzaC1lZDI1NTE5AAAAIA', fingerprint: FP_A };
const ED_B = { keyType: 'ssh-ed25519', publicKey: 'AAAAC3NzaC1lZDI1NTE5AAAAIB', fingerprint: FP_B };
const RSA_B = { keyType: 'ssh-rsa', publicKey: 'AAAAB3NzaC1yc2EAAAADAQAB', fingerprint: FP_B };

const created: ProjectEvent = { type: 'ProjectCreated', data: { slug: 'acme', name: 'Acme', webhookNonce: 'n' } };
const keyAdded: ProjectEvent = { type: 'ProjectSshKeyAdded', data: { slug: 'acme', keyId: 3, name: 'deploy', fingerprint: FP_A } };
const pinned: ProjectEvent = { type: 'ProjectHostKeyPinned', data: { slug: 'acme', host: 'git.example.com', port: 22, keys: [ED_A] } };

describe('project decider: SSH keys and pinned host keys', () => {
  const spec = deciderSpec(projectDecider);

  it('adds a keyring key once, and removes it', () => {
    spec.given([created]).when({ type: 'AddProjectSshKey', key: { keyId: 3, name: 'deploy', fingerprint: FP_A } }).then([keyAdded]);
    spec.given([created, keyAdded]).when({ type: 'AddProjectSshKey', key: { keyId: 3, name: 'deploy', fingerprint: FP_A } }).thenNothingHappens();
    spec.given([created, keyAdded]).when({ type: 'RemoveProjectSshKey', keyId: 3 }).then([{ type: 'ProjectSshKeyRemoved', data: { slug: 'acme', keyId: 3 } }]);
  });

  it('refuses to remove a key the project does not have, and to act on a missing project', () => {
    spec.given([created]).when({ type: 'RemoveProjectSshKey', keyId: 3 }).thenThrows(DomainError, /key 3 is not one of this project's keys/);
    spec.given([]).when({ type: 'AddProjectSshKey', key: { keyId: 3, name: 'd', fingerprint: FP_A } }).thenThrows(DomainError, /no such project/);
  });

  it('pins a first contact (host lower-cased), and accepts the same keys again without a new event', () => {
    spec.given([created]).when({ type: 'PinHostKey', host: 'Git.Example.com', port: 22, keys: [ED_A] }).then([pinned]);
    spec.given([created, pinned]).when({ type: 'PinHostKey', host: 'git.example.com', port: 22, keys: [ED_A] }).thenNothingHappens();
    spec.given([created, pinned]).when({ type: 'PinHostKey', host: 'git.example.com', port: 2222, keys: [ED_B] }).then([{ type: 'ProjectHostKeyPinned', data: { slug: 'acme', host: 'git.example.com', port: 2222, keys: [ED_B] } }]);
  });

  it('refuses a changed host key naming both fingerprints, whether the type is the same or not', () => {
    spec.given([created, pinned]).when({ type: 'PinHostKey', host: 'git.example.com', port: 22, keys: [ED_B] }).thenThrows(HostKeyMismatchError, new RegExp(`pinned ${FP_A}, now ${FP_B}`));
    spec.given([created, pinned]).when({ type: 'PinHostKey', host: 'git.example.com', port: 22, keys: [RSA_B] }).thenThrows(HostKeyMismatchError, /forget the pinned key/);
    spec.given([created]).when({ type: 'PinHostKey', host: 'h', port: 22, keys: [] }).thenThrows(DomainError, /presented no host key/);
  });

  it('forgets a pinned host, after which any key pins again', () => {
    const forgotten: ProjectEvent = { type: 'ProjectHostKeyForgotten', data: { slug: 'acme', host: 'git.example.com', port: 22 } };
    spec.given([created, pinned]).when({ type: 'ForgetHostKey', host: 'GIT.example.com', port: 22 }).then([forgotten]);
    spec.given([created, pinned, forgotten]).when({ type: 'PinHostKey', host: 'git.example.com', port: 22, keys: [ED_B] }).then([{ type: 'ProjectHostKeyPinned', data: { slug: 'acme', host: 'git.example.com', port: 22, keys: [ED_B] } }]);
    spec.given([created]).when({ type: 'ForgetHostKey', host: 'git.example.com', port: 22 }).thenThrows(DomainError, /no host key is pinned for git.example.com/);
  });

  const events: ProjectEvent[] = [keyAdded, { type: 'ProjectSshKeyRemoved', data: { slug: 'acme', keyId: 3 } }, pinned, { type: 'ProjectHostKeyForgotten', data: { slug: 'acme', host: 'git.example.com', port: 22 } }];
  for (const event of events) {
    it(`${event.type} matches schemas/events/${event.type}.v1.json`, () => {
      const validate = schemaValidator(`events/${event.type}.v1.json`);
      expect(validate(event.data), describeErrors(validate)).to.equal(true);
    });
  }
});

describe('SSH key decider', () => {
  const spec = deciderSpec(sshKeyDecider);
  const facts = { keyId: 7, name: 'deploy', keyType: 'ed25519', bits: 256, fingerprint: FP_A, publicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA forja:deploy', origin: 'generated' } as const;
  const added: SshKeyEvent = { type: 'SshKeyAdded', data: facts };

  it('adds a key once, trimming its name, and refuses a bad name', () => {
    spec.given([]).when({ type: 'AddSshKey', key: { ...facts, name: '  deploy ' } }).then([added]);
    spec.given([added]).when({ type: 'AddSshKey', key: facts }).thenThrows(DomainError, /exists already/);
    spec.given([]).when({ type: 'AddSshKey', key: { ...facts, name: 'a\u0007b' } }).thenThrows(DomainError, /control characters/);
    spec.given([]).when({ type: 'AddSshKey', key: { ...facts, name: 'x'.repeat(81) } }).thenThrows(DomainError, /longer than 80/);
  });

  it('deletes a live key once', () => {
    const deleted: SshKeyEvent = { type: 'SshKeyDeleted', data: { keyId: 7, name: 'deploy', fingerprint: FP_A } };
    spec.given([added]).when({ type: 'DeleteSshKey' }).then([deleted]);
    spec.given([added, deleted]).when({ type: 'DeleteSshKey' }).thenThrows(DomainError, /no such key/);
    spec.given([]).when({ type: 'DeleteSshKey' }).thenThrows(DomainError, /no such key/);
  });

  for (const event of [added, { type: 'SshKeyDeleted', data: { keyId: 7, name: 'deploy', fingerprint: FP_A } }] as SshKeyEvent[]) {
    it(`${event.type} matches schemas/events/${event.type}.v1.json`, () => {
      const validate = schemaValidator(`events/${event.type}.v1.json`);
      expect(validate(event.data), describeErrors(validate)).to.equal(true);
    });
  }
});
