// scrypt-kdf hashing: the production parameter set, and the dummy hash that makes an
// unknown user cost one full verification.
import { expect } from 'chai';
import * as ScryptModule from 'scrypt-kdf';
import { createScryptHasher, dummyHash } from '../../src/auth/password-hasher.js';
import { loadConfig } from '../../src/config.js';

const Scrypt = ((ScryptModule as unknown as { default?: typeof ScryptModule }).default ?? ScryptModule) as typeof ScryptModule;

describe('auth password hasher', () => {
  it('hashes with the OWASP defaults (logN 15, r 8, p 3) and verifies', async function () {
    this.timeout(20_000);
    const params = loadConfig({}).scrypt;
    const hasher = createScryptHasher(params);
    const hash = await hasher.hash('correct-horse');
    expect(Scrypt.viewParams(hash)).to.deep.equal({ logN: 15, r: 8, p: 3 });
    expect(hash).not.to.include('correct-horse');
    expect(await hasher.verify(hash, 'correct-horse')).to.equal(true);
    expect(await hasher.verify(hash, 'correct-horsE')).to.equal(false);
  });

  it('salts: the same password hashes differently', async () => {
    const hasher = createScryptHasher({ logN: 4, r: 8, p: 1 });
    expect(await hasher.hash('same-password')).not.to.equal(await hasher.hash('same-password'));
  });

  it('never matches the dummy hash, which carries the configured parameters', async () => {
    const params = { logN: 12, r: 8, p: 3 };
    const dummy = dummyHash(params);
    expect(Scrypt.viewParams(dummy)).to.deep.equal(params);
    expect(await createScryptHasher(params).verify(dummy, 'anything')).to.equal(false);
  });

  it('spends as long on the dummy hash as on a real one (full scrypt, not an early exit)', async function () {
    this.timeout(20_000);
    const params = { logN: 14, r: 8, p: 1 };
    const hasher = createScryptHasher(params);
    const real = await hasher.hash('correct-horse');
    const dummy = dummyHash(params);
    const time = async (hash: string) => {
      const t = process.hrtime.bigint();
      for (let i = 0; i < 3; i++) await hasher.verify(hash, 'wrong-password');
      return Number(process.hrtime.bigint() - t);
    };
    await time(real);
    const [a, b] = [await time(real), await time(dummy)];
    expect(b / a).to.be.within(0.5, 2);
  });

  it('treats a corrupt stored hash as no match', async () => {
    expect(await createScryptHasher({ logN: 4, r: 8, p: 1 }).verify('not-a-hash', 'x')).to.equal(false);
  });
});
