/**
 * Deploys a program through the upgradeable BPF loader with ordinary transactions —
 * InitializeBuffer, Write (in chunks), DeployWithMaxDataLen, built by `program/loader.ts` — so
 * the same ELF checks as a cluster deployment run (docs/architecture.md#the-local-chain).
 */
import { Keypair } from '@solana/web3.js';
import { deployAccountSizes, upgradeableDeploySteps, type DeployStep } from '../../../program/loader.ts';
import type { TxSender } from '../tx-sender.ts';

/** Deploys `elf` at `program`'s address, upgrade authority and payer `authority`. */
export async function deployUpgradeable(
  sender: TxSender,
  rentExempt: (size: number) => Promise<number>,
  authority: Keypair,
  program: Keypair,
  elf: Uint8Array,
): Promise<void> {
  const rents = new Map<number, bigint>();
  for (const size of deployAccountSizes(elf.length)) rents.set(size, BigInt(await rentExempt(size)));
  const steps = upgradeableDeploySteps({
    payer: authority,
    program,
    buffer: Keypair.generate(),
    elf,
    rentExempt: (bytes) => {
      const lamports = rents.get(bytes);
      if (lamports === undefined) throw new Error(`no rent-exempt minimum fetched for ${bytes} bytes`);
      return lamports;
    },
  });
  const send = (label: string, step: DeployStep) =>
    sender.sendAndConfirm(
      label,
      step.instructions,
      authority,
      step.signers.filter((s) => s !== authority),
    );
  const [createBuffer, ...rest] = steps;
  const deploy = rest.pop();
  if (createBuffer === undefined || deploy === undefined) throw new Error('a deployment has at least two steps');
  await send('create program buffer', createBuffer);
  await Promise.all(rest.map((write, i) => send(`write program bytes, chunk ${i + 1} of ${rest.length}`, write)));
  await send('deploy program', deploy);
}
