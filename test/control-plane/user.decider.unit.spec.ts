import { expect } from 'chai';
import { DomainError } from '#shared/decider/decider.ts';
import { isEmail, normalizeEmail, userIdFor } from '#services/control-plane/identity/user.ts';
import { userDecider } from '#services/control-plane/identity/user.decider.ts';
import { deciderSpec } from '#test/support/deciderSpec.ts';

describe('user decider', () => {
  const spec = deciderSpec(userDecider);
  const registered = { type: 'UserRegistered', data: { userId: 'u1', email: 'ana@example.com', role: 'viewer', source: 'oidc' } } as const;

  it('registers a user once', () => {
    spec.given([]).when({ type: 'RegisterUser', userId: 'u1', email: 'ana@example.com', role: 'viewer', source: 'oidc' }).then([registered]);
    spec.given([registered]).when({ type: 'RegisterUser', userId: 'u1', email: 'ana@example.com', role: 'admin', source: 'cli' }).thenThrows(DomainError, /already exists/);
  });

  it('changes the role, and does nothing for the same role', () => {
    spec.given([registered]).when({ type: 'ChangeUserRole', role: 'developer' }).then([{ type: 'UserRoleChanged', data: { userId: 'u1', role: 'developer' } }]);
    spec.given([registered]).when({ type: 'ChangeUserRole', role: 'viewer' }).thenNothingHappens();
  });

  it('deactivates and reactivates', () => {
    const deactivated = { type: 'UserDeactivated', data: { userId: 'u1' } } as const;
    spec.given([registered]).when({ type: 'DeactivateUser' }).then([deactivated]);
    spec.given([registered, deactivated]).when({ type: 'DeactivateUser' }).thenNothingHappens();
    spec.given([registered, deactivated]).when({ type: 'ReactivateUser' }).then([{ type: 'UserReactivated', data: { userId: 'u1' } }]);
  });

  it('refuses commands for an unknown user as not found', () => {
    expect(() => userDecider.decide({ type: 'DeactivateUser' }, userDecider.initialState())).to.throw(DomainError).with.property('kind', 'not_found');
  });

  it('derives one id per e-mail whatever its case', () => {
    expect(normalizeEmail(' Ana@Example.COM ')).to.equal('ana@example.com');
    expect(userIdFor('Ana@Example.com')).to.equal(userIdFor('ana@example.com')).and.have.length(24);
    expect(isEmail('ana@example.com')).to.equal(true);
    expect(isEmail('ana@example')).to.equal(false);
    expect(isEmail('an a@example.com')).to.equal(false);
  });
});
