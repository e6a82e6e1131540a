/**
 * The committed .so deployed the way a cluster deploys it (upgradeable loader: buffer, writes,
 * DeployWithMaxDataLen, which runs the loader's ELF and verifier checks), then used.
 */
import { readFileSync } from 'node:fs';
import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { PROGRAM_ID, PROGRAM_SO_PATH, programKeypair } from '../index.ts';
import { BPF_LOADER_UPGRADEABLE_ID, programDataAddress, upgradeableDeploySteps } from '../loader.ts';
import { expectRefused } from './refusal.ts';
import { BetChain } from './svm.ts';

/** The upgradeable loader's deploy transactions for `elf` under the program's key, paid by a freshly funded deployer. */
function deployStepsOn(chain: BetChain, elf: Buffer) {
  const deployer = Keypair.generate();
  chain.airdrop(deployer.publicKey, 100_000_000_000n);
  return upgradeableDeploySteps({
    payer: deployer,
    program: programKeypair(),
    buffer: Keypair.generate(),
    elf,
    rentExempt: (bytes) => chain.svm.minimumBalanceForRentExemption(BigInt(bytes)),
  });
}

describe('deploy through the upgradeable loader', () => {
  it('deploys the committed .so and runs a whole bet on it', async () => {
    const chain = new BetChain({ deploy: false });
    const elf = readFileSync(PROGRAM_SO_PATH);
    const steps = deployStepsOn(chain, elf);
    for (const step of steps) chain.mustSend(step.instructions, step.signers);
    chain.nextSlot();

    const program = chain.readAccount(PROGRAM_ID)!;
    expect(program.owner).toBe(BPF_LOADER_UPGRADEABLE_ID.toBase58());
    const programData = chain.readAccount(programDataAddress(PROGRAM_ID))!;
    expect(Buffer.from(programData.data.subarray(45, 45 + elf.length)).equals(elf)).toBe(true);

    await chain.setUp();
    const bettor = chain.newBettor();
    const { id } = await chain.placeBet(bettor, 1, 1_000_000_000n, 15_000_000_000n);
    expectRefused(chain.send([await chain.closeBetIx(id, bettor, 14_000_000_000n)], [chain.relayer]), 'BetNotExpired');
    chain.setTime(chain.now() + 15n);
    chain.mustSend([await chain.closeBetIx(id, bettor, 14_000_000_000n)], [chain.relayer]);
    expect(chain.readBet(id).status).toBe(1);
  });

  it('the loader refuses a corrupted ELF at deploy time', () => {
    const chain = new BetChain({ deploy: false });
    const elf = Buffer.from(readFileSync(PROGRAM_SO_PATH));
    elf.writeUInt16LE(62, 18); // e_machine x86-64
    const steps = deployStepsOn(chain, elf);
    for (const step of steps.slice(0, -1)) chain.mustSend(step.instructions, step.signers);
    const last = steps.at(-1)!;
    const sent = chain.send(last.instructions, last.signers);
    expect(sent.ok).toBe(false);
    if (!sent.ok) expect(sent.logs.join("\n")).toMatch(/Incompatible ELF/);
    expect(chain.readAccount(PROGRAM_ID)).toBeNull();
  });
});
