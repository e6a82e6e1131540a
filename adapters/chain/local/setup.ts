/**
 * Fresh data dir: fund the role keys, deploy the contract through the upgradeable loader (its
 * upgrade authority is the upgrade-authority key), create the 6-decimal test mint (the
 * mint-authority key), and (unless GW_INIT=off) fund the vault and initialise the contract —
 * signed by the upgrade authority, naming the admin and relayer keys — with the same function
 * the gateway's boot uses (docs/architecture.md#the-local-chain).
 */
import { addPriceSignerIx, setPriceRulesIx } from '../codec.ts';
import * as v from 'valibot';
import { Keypair, LAMPORTS_PER_SOL, SystemProgram, type PublicKey, type TransactionInstruction } from '@solana/web3.js';
import { MINT_SIZE, TOKEN_PROGRAM_ID, createInitializeMint2Instruction } from '@solana/spl-token';
import type { Logger } from '../../../kernel/log.ts';
import { initializeContract } from '../initialize.ts';
import type { InitParams } from '../port.ts';
import { RpcChain } from '../rpc-chain/index.ts';
import { RpcClient, type JsonRpcTransport } from '../rpc-client.ts';
import { TxSender } from '../tx-sender.ts';
import { deployUpgradeable } from './deploy.ts';
import type { LocalNode } from './node.ts';
import { programElf, programKeypair } from './program-files.ts';
import { ROLES, type Role, type RoleKeys } from './data-dir.ts';
import { LocalPubSub } from './subscriptions.ts';

/** 6 decimals, like the API's token amounts (docs/gateway-api.md#units) */
export const TEST_MINT_DECIMALS = 6;
/** What each role starts with: the relayer pays every bet's rent and fee, the mint authority every faucet grant. */
const START_LAMPORTS: Record<Role, number> = {
  admin: 100 * LAMPORTS_PER_SOL,
  relayer: 100_000 * LAMPORTS_PER_SOL,
  'mint-authority': 100_000 * LAMPORTS_PER_SOL,
  'upgrade-authority': 1_000 * LAMPORTS_PER_SOL,
};

/** The maximum entry tick age a fresh local chain gets: the spec's 30 s rule (docs/decisions.md#signed-prices). */
const SIGNED_ENTRY_AGE_MS = 30_000n;

/** The admin's instructions that turn signed prices on, trusting `signer` for ten years (a local chain's signer is rotated by starting fresh). */
export function signedPricesOnIxs(admin: PublicKey, signer: PublicKey): TransactionInstruction[] {
  const expiresAt = BigInt(Math.floor(Date.now() / 1000) + 10 * 365 * 24 * 3600);
  return [setPriceRulesIx(admin, true, SIGNED_ENTRY_AGE_MS), addPriceSignerIx(admin, signer, expiresAt)];
}

/** What the fresh-dir setup works with. */
export interface SetupOptions {
  transport: JsonRpcTransport;
  node: LocalNode;
  keys: RoleKeys;
  /** null: GW_INIT=off */
  init: InitParams | null;
  /** with `init`: signed prices on, this price signer trusted (docs/decisions.md#signed-prices) */
  priceSigner?: PublicKey;
  log: Logger;
}

/** Runs the fresh-dir setup; returns the test mint. */
export async function setUpFreshChain(o: SetupOptions): Promise<PublicKey> {
  const rpc = new RpcClient(o.transport);
  const sender = new TxSender(rpc, { confirmTimeoutMs: 10_000, pollMs: 10, blockhashTtlMs: 60_000 });
  const rentExempt = (size: number) => rpc.call('getMinimumBalanceForRentExemption', [size], v.number());

  for (const role of ROLES) {
    const airdrop = await rpc.call('requestAirdrop', [o.keys[role].publicKey.toBase58(), START_LAMPORTS[role]], v.string());
    await sender.confirm(`${role} airdrop`, airdrop);
  }

  const elf = programElf();
  if (!elf) throw new Error('program/updown.so is missing: build the contract first (npm run build:program)');
  const minter = o.keys['mint-authority'];
  await deployUpgradeable(sender, rentExempt, o.keys['upgrade-authority'], programKeypair(), elf);
  o.node.advanceSlot(); // a deployment becomes executable one slot later
  o.log.info({ programId: programKeypair().publicKey.toBase58(), bytes: elf.length }, 'contract deployed through the upgradeable loader');

  const mint = Keypair.generate();
  await sender.sendAndConfirm(
    'create test mint',
    [
      SystemProgram.createAccount({
        fromPubkey: minter.publicKey,
        newAccountPubkey: mint.publicKey,
        lamports: await rentExempt(MINT_SIZE),
        space: MINT_SIZE,
        programId: TOKEN_PROGRAM_ID,
      }),
      createInitializeMint2Instruction(mint.publicKey, TEST_MINT_DECIMALS, minter.publicKey, null),
    ],
    minter,
    [mint],
  );
  o.log.info({ mint: mint.publicKey.toBase58() }, 'test mint created');

  if (o.init) {
    const chain = new RpcChain({
      transport: o.transport,
      pubsub: new LocalPubSub(o.node),
      keys: { relayer: o.keys.relayer, admin: o.keys.admin, mintAuthority: o.keys['mint-authority'], upgradeAuthority: o.keys['upgrade-authority'] },
      mint: mint.publicKey,
      pollMs: 10,
      log: o.log,
    });
    try {
      const outcome = await initializeContract(chain, o.init);
      o.log.info(
        {
          outcome,
          admin: o.keys.admin.publicKey.toBase58(),
          relayer: o.keys.relayer.publicKey.toBase58(),
          ...Object.fromEntries(Object.entries(o.init).map(([k, val]) => [k, String(val)])),
        },
        'contract initialised by its upgrade authority, vault funded',
      );
      if (o.priceSigner) {
        await sender.sendAndConfirm('signed prices on', signedPricesOnIxs(o.keys.admin.publicKey, o.priceSigner), o.keys.admin);
        o.log.info({ priceSigner: o.priceSigner.toBase58() }, 'signed prices on: the contract takes only ticks of this price signer');
      }
    } finally {
      chain.close();
    }
  }
  return mint.publicKey;
}
