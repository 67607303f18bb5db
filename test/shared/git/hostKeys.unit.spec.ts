import { expect } from 'chai';
import { GitSourceError } from '#shared/git/gitCommand.ts';
import { compareHostKeys, hostKey, HostKeyChangedError, knownHostsText } from '#shared/git/hostKeys.ts';

// Keys made with ssh-keygen; fingerprints as `ssh-keygen -l` printed them.
const ED25519_A = 'AAAAC3NzaC1lZDI1NTE5AAAAIBghKwPq+QZrldZ2i8cK1jVBulvdleEG5LDmEjf104ha';
const ED25519_B = 'AAAAC3NzaC1lZDI1NTE5AAAAINwodrNlSt4177CGbFgNrbl2HrbekaBqpSQSZfuNcQal';
const ECDSA = 'AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBHQPk3Uzb2JuP7Gipj9QMS0Bq7AgGSmd8mi6T0dxMSnoE69kU3PxgarQac60+LCE8avRDKSy6XZ4Pdmpu3Gk+VA=';
const RSA =
  'AAAAB3NzaC1yc2EAAAADAQABAAABAQCJB0UKc95YsEEDnCUxrQje38Vg1bMVCEooTwkelDsggELhcArrA8/Yr22007KuiKfbpuTjA7/RxNeT2BaFlw/eVHzl5zQaWHQfELI6930XyfCQ5aFlq4lm9DCU/F0KpcM7rqJKbIeeWC8vaagL8rKJX1ORXWphb9zyGhhjL3yR6Ujv3dqsvXzm+2TqERr9mH8q+p0FKXh9myajNqaf4UGod98hiBZeSlMx1FweFpe+eIWqQV3S3OKy7OOGRtJJqiAnR3DBPgZU5HsyyGNTHHmNYDkm6OUwqc5Ila1e09qptUFhOP5xIh2Qg9aWbn0jfKuAjdGkSHZq1XO/8ZI/ooNl';

const edA = hostKey('ssh-ed25519', ED25519_A);
const edB = hostKey('ssh-ed25519', ED25519_B);
const ecdsa = hostKey('ecdsa-sha2-nistp256', ECDSA);
const rsa = hostKey('ssh-rsa', RSA);

describe('host keys', () => {
  describe('hostKey', () => {
    it('computes the fingerprint ssh-keygen -l prints', () => {
      expect(edA.fingerprint).to.equal('SHA256:ntTUzosZTW+0leM1WeKVQGqn/CE9sp+/wQqhV6iYGvM');
      expect(edB.fingerprint).to.equal('SHA256:LrR86L8ticp+hnnUXZWAn3I6OBePbzeScKGFfz4LPUM');
      expect(ecdsa.fingerprint).to.equal('SHA256:+61a5SzPYsLk7WWK7efQ51UKqc6SH/NVcNYtVn1hxsM');
      expect(rsa.fingerprint).to.equal('SHA256:4KXKdM+Ino6MbvMZrRO9vgiXDPhmIBNgMu4peCFhZqg');
    });

    for (const [what, keyType, blob] of [
      ['a blob of another type', 'ssh-rsa', ED25519_A],
      ['text that is not base64', 'ssh-ed25519', 'not base64!'],
      ['a blob too short to hold a type', 'ssh-ed25519', 'AAAA'],
      ['a type with a space', 'ssh ed25519', ED25519_A],
    ] as const) {
      it(`refuses ${what}`, () => {
        expect(() => hostKey(keyType, blob)).to.throw(GitSourceError, /not an SSH public key/);
      });
    }
  });

  describe('knownHostsText', () => {
    it('writes a host on port 22 plainly and any other port in brackets, one line per key', () => {
      const text = knownHostsText([
        { host: 'git.example.com', port: 22, keys: [edA, rsa] },
        { host: '127.0.0.1', port: 2222, keys: [edB] },
      ]);
      expect(text).to.equal(`git.example.com ssh-ed25519 ${ED25519_A}\ngit.example.com ssh-rsa ${RSA}\n[127.0.0.1]:2222 ssh-ed25519 ${ED25519_B}\n`);
    });

    it('refuses hosts and keys that would make another known_hosts line or a marker', () => {
      expect(() => knownHostsText([{ host: 'a.example\n@revoked *', port: 22, keys: [edA] }])).to.throw(GitSourceError, /not a host for known_hosts/);
      expect(() => knownHostsText([{ host: '*', port: 22, keys: [edA] }])).to.throw(GitSourceError, /not a host for known_hosts/);
      expect(() => knownHostsText([{ host: 'a.example', port: 22, keys: [{ ...edA, publicKey: `${ED25519_A}\nevil.example ssh-ed25519 ${ED25519_B}` }] }])).to.throw(GitSourceError);
    });
  });

  describe('compareHostKeys', () => {
    it('matches when every type both sides have holds the same key, even if the server added a type', () => {
      expect(compareHostKeys([edA], [edA])).to.deep.equal({ kind: 'match' });
      expect(compareHostKeys([edA], [rsa, edA, ecdsa])).to.deep.equal({ kind: 'match' });
      expect(compareHostKeys([edA, rsa], [rsa])).to.deep.equal({ kind: 'match' });
    });

    it('names both fingerprints of the type that changed', () => {
      expect(compareHostKeys([edA, rsa], [edB, rsa])).to.deep.equal({ kind: 'changed', pinned: edA.fingerprint, presented: edB.fingerprint });
    });

    it('says changed when no type is in common, with each side’s preferred key', () => {
      expect(compareHostKeys([rsa, edA], [ecdsa])).to.deep.equal({ kind: 'changed', pinned: edA.fingerprint, presented: ecdsa.fingerprint });
      expect(compareHostKeys([edA], [])).to.deep.equal({ kind: 'changed', pinned: edA.fingerprint, presented: 'no key' });
    });
  });

  it('HostKeyChangedError names the host, both fingerprints and what to do', () => {
    const error = new HostKeyChangedError('127.0.0.1', 2222, edA.fingerprint, edB.fingerprint);
    expect(error).to.be.instanceOf(GitSourceError);
    expect(error.kind).to.equal('host_key_changed');
    expect(error.message).to.equal(
      `the SSH host key of [127.0.0.1]:2222 changed: Forja pinned ${edA.fingerprint}, the server now presents ${edB.fingerprint}. ` +
        "Nothing was fetched, as the server may be an impostor; if the server's key really changed, an admin can forget the pinned key on the project page",
    );
  });
});
