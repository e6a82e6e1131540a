/**
 * Fresh data dir: fund the operator, deploy the contract through the upgradeable loader,
 * create the 6-decimal test mint, and (unless GW_INIT=off) fund the vault and initialise
 * the contract with the same function the gateway's boot uses (design: "The local chain").
 */
import * as v from 'valibot';
import { Keypair, LAMPORTS_PER_SOL, SystemProgram, type PublicKey } from '@solana/web3.js';
import { MINT_SIZE, TOKEN_PROGRAM_ID, createInitializeMint2Instruction } from '@solana/spl-token';
import type { Logger } from '../../../runtime/log.ts';
import { initializeContract } from '../initialize.ts';
import type { InitParams } from '../port.ts';
import { RpcChain } from '../rpc-chain.ts';
import { RpcClient, type JsonRpcTransport } from '../rpc-client.ts';
import { TxSender } from '../tx-sender.ts';
import { deployUpgradeable } from './deploy.ts';
import type { LocalNode } from './node.ts';
import { programElf, programKeypair } from './program-files.ts';

/** 6 decimals, like the spec's token amounts */
export const TEST_MINT_DECIMALS = 6;
const OPERATOR_LAMPORTS = 100_000 * LAMPORTS_PER_SOL;

/** What the fresh-dir setup works with. */
export interface SetupOptions {
  transport: JsonRpcTransport;
  node: LocalNode;
  operator: Keypair;
  /** null: GW_INIT=off */
  init: InitParams | null;
  log: Logger;
}

/** Runs the fresh-dir setup; returns the test mint. */
export async function setUpFreshChain(o: SetupOptions): Promise<PublicKey> {
  const rpc = new RpcClient(o.transport);
  const sender = new TxSender(rpc, { confirmTimeoutMs: 10_000, pollMs: 10, blockhashTtlMs: 60_000 });
  const op = o.operator;
  const rentExempt = (size: number) => rpc.call('getMinimumBalanceForRentExemption', [size], v.number());

  const airdrop = await rpc.call('requestAirdrop', [op.publicKey.toBase58(), OPERATOR_LAMPORTS], v.string());
  await sender.confirm('operator airdrop', airdrop);

  const elf = programElf();
  if (!elf) throw new Error('program/updown.so is missing: build the contract first (npm run build:program)');
  await deployUpgradeable(sender, rentExempt, op, programKeypair(), elf);
  o.node.advanceSlot(); // a deployment becomes executable one slot later
  o.log.info({ programId: programKeypair().publicKey.toBase58(), bytes: elf.length }, 'contract deployed through the upgradeable loader');

  const mint = Keypair.generate();
  await sender.sendAndConfirm(
    'create test mint',
    [
      SystemProgram.createAccount({ fromPubkey: op.publicKey, newAccountPubkey: mint.publicKey, lamports: await rentExempt(MINT_SIZE), space: MINT_SIZE, programId: TOKEN_PROGRAM_ID }),
      createInitializeMint2Instruction(mint.publicKey, TEST_MINT_DECIMALS, op.publicKey, null),
    ],
    op,
    [mint],
  );
  o.log.info({ mint: mint.publicKey.toBase58() }, 'test mint created');

  if (o.init) {
    const chain = new RpcChain({ transport: o.transport, operator: op, mint: mint.publicKey, pollMs: 10 });
    const outcome = await initializeContract(chain, o.init);
    o.log.info({ outcome, ...Object.fromEntries(Object.entries(o.init).map(([k, val]) => [k, String(val)])) }, 'contract initialised, vault funded');
  }
  return mint.publicKey;
}
