/**
 * The committed .so deployed the way a cluster deploys it (upgradeable loader: buffer, writes,
 * DeployWithMaxDataLen, which runs the loader's ELF and verifier checks), then used: the
 * deployer is the upgrade authority and the only key that may initialize; the ProgramData the
 * loader writes has the layout the other tests' harness writes directly.
 */
import { readFileSync } from 'node:fs';
import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { PROGRAM_ID, PROGRAM_SO_PATH, programDataPda, programKeypair } from '../index.ts';
import { BPF_LOADER_UPGRADEABLE_ID, programDataAddress, setUpgradeAuthorityInstruction, upgradeableDeploySteps } from '../loader.ts';
import { expectRefused } from './refusal.ts';
import { BetChain } from './svm.ts';

/** The upgradeable loader's deploy transactions for `elf` under the program's key, paid by `deployer` (the upgrade authority). */
function deployStepsOn(chain: BetChain, elf: Buffer, deployer: Keypair) {
  return upgradeableDeploySteps({
    payer: deployer,
    program: programKeypair(),
    buffer: Keypair.generate(),
    elf,
    rentExempt: (bytes) => chain.svm.minimumBalanceForRentExemption(BigInt(bytes)),
  });
}

/** A chain whose program was deployed through the loader by its `authority`. */
function deployed(): { chain: BetChain; elf: Buffer } {
  const chain = new BetChain({ deploy: false });
  const elf = readFileSync(PROGRAM_SO_PATH);
  for (const step of deployStepsOn(chain, elf, chain.authority)) chain.mustSend(step.instructions, step.signers);
  chain.nextSlot();
  return { chain, elf };
}

describe('deploy through the upgradeable loader', () => {
  it('deploys the committed .so; the deployer initializes and a whole bet runs on it', async () => {
    const { chain, elf } = deployed();
    const program = chain.readAccount(PROGRAM_ID)!;
    expect(program.owner).toBe(BPF_LOADER_UPGRADEABLE_ID.toBase58());
    expect(programDataPda()[0].equals(programDataAddress(PROGRAM_ID))).toBe(true);
    expect(Buffer.from(program.data.subarray(4, 36)).equals(programDataPda()[0].toBuffer())).toBe(true);
    const programData = chain.readAccount(programDataAddress(PROGRAM_ID))!;
    expect(Buffer.from(programData.data).readUInt32LE(0)).toBe(3);
    expect(programData.data[12]).toBe(1);
    expect(Buffer.from(programData.data.subarray(13, 45)).equals(chain.authority.publicKey.toBuffer())).toBe(true);
    expect(Buffer.from(programData.data.subarray(45, 45 + elf.length)).equals(elf)).toBe(true);

    expectRefused(chain.send([await chain.initializeIx(undefined, { authority: chain.admin.publicKey })], [chain.admin]), 'NotUpgradeAuthority');
    await chain.setUp();
    const bettor = chain.newBettor();
    const { bet } = await chain.placeBet(bettor, 1, 1_000_000_000n, 15_000_000_000n);
    expectRefused(chain.send([await chain.closeBetIx(bet, bettor, 14_000_000_000n)], [chain.relayer]), 'BetNotExpired');
    chain.setTime(chain.now() + 15n);
    chain.mustSend([await chain.closeBetIx(bet, bettor, 14_000_000_000n)], [chain.relayer]);
    expect(chain.readBet(bet).status).toBe(1);
  });

  it('after the loader hands the upgrade authority on, only the new authority initializes; an immutable program cannot be initialized', async () => {
    const { chain } = deployed();
    const next = Keypair.generate();
    chain.airdrop(next.publicKey, 10_000_000_000n);
    chain.mustSend([setUpgradeAuthorityInstruction(PROGRAM_ID, chain.authority.publicKey, next.publicKey)], [chain.authority]);
    chain.createMintAndVault();
    expectRefused(chain.send([await chain.initializeIx()], [chain.authority]), 'NotUpgradeAuthority');
    chain.mustSend([setUpgradeAuthorityInstruction(PROGRAM_ID, next.publicKey, null)], [next]);
    expect(chain.readAccount(programDataAddress(PROGRAM_ID))!.data[12]).toBe(0);
    expectRefused(chain.send([await chain.initializeIx(undefined, { authority: next.publicKey })], [next]), 'NotUpgradeAuthority');
    expect(chain.readAccount(chain.config)).toBeNull();
  });

  it('the loader refuses a corrupted ELF at deploy time', () => {
    const chain = new BetChain({ deploy: false });
    const elf = Buffer.from(readFileSync(PROGRAM_SO_PATH));
    elf.writeUInt16LE(62, 18); // e_machine x86-64
    const steps = deployStepsOn(chain, elf, chain.authority);
    for (const step of steps.slice(0, -1)) chain.mustSend(step.instructions, step.signers);
    const last = steps.at(-1)!;
    const sent = chain.send(last.instructions, last.signers);
    expect(sent.ok).toBe(false);
    if (!sent.ok) expect(sent.logs.join('\n')).toMatch(/Incompatible ELF/);
    expect(chain.readAccount(PROGRAM_ID)).toBeNull();
  });
});
