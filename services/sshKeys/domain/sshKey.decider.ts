import { DomainError, type Decider } from '#shared/decider/decider.ts';
import { evolveSshKey, initialSshKeyState, keyNameProblem, type SshKeyEvent, type SshKeyFacts, type SshKeyState } from './sshKey.ts';

export type SshKeyCommand = { type: 'AddSshKey'; key: SshKeyFacts } | { type: 'DeleteSshKey' };

function decide(command: SshKeyCommand, state: SshKeyState): SshKeyEvent[] {
  switch (command.type) {
    case 'AddSshKey': {
      if (state.status !== 'none') throw new DomainError(`key ${command.key.keyId} exists already`);
      const problem = keyNameProblem(command.key.name);
      if (problem) throw new DomainError(problem, 'invalid');
      return [{ type: 'SshKeyAdded', data: { ...command.key, name: command.key.name.trim() } }];
    }
    case 'DeleteSshKey':
      if (state.status !== 'live') throw new DomainError('no such key', 'not_found');
      return [{ type: 'SshKeyDeleted', data: { keyId: state.key.keyId, name: state.key.name, fingerprint: state.key.fingerprint } }];
    default: {
      const unknown: never = command;
      return unknown;
    }
  }
}

export const sshKeyDecider: Decider<SshKeyState, SshKeyCommand, SshKeyEvent> = { decide, evolve: evolveSshKey, initialState: initialSshKeyState };
