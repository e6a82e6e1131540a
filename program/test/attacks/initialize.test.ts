/**
 * initialize: an attacker cannot initialize without the upgrade authority, through a forged or
 * foreign ProgramData or program, at a non-PDA config, or with a mint or vault that is not right.
 */
import { readFileSync } from 'node:fs';
import { Keypair, SystemProgram } from '@solana/web3.js';
import { address } from '@solana/kit';
import { beforeEach, describe, expect, it } from 'vitest';
import { PROGRAM_ID, PROGRAM_SO_PATH, UPGRADEABLE_LOADER_ID, programDataPda } from '../../index.ts';
import { forgeCopy, tokenAccountAt, writeAccount } from '../forge.ts';
import { expectRefused } from '../refusal.ts';
import type { BetChain } from '../svm.ts';
import { DEFAULT_PARAMS, TOKEN_PROGRAM_ID, patchAccount } from '../svm.ts';
import { newChain, stranger } from './support.ts';

let chain: BetChain;

describe('initialize: attacker', () => {
  beforeEach(() => {
    chain = newChain();
  });

  it("cannot initialize in the upgrade authority's name without its signature", async () => {
    const payer = stranger(chain);
    const ix = patchAccount(await chain.initializeIx(), 'initialize', 'authority', { isSigner: false });
    expectRefused(chain.send([ix], [payer]), 'MissingSignature');
  });

  it('cannot initialize with a key that is not the upgrade authority (the admin or a stranger)', async () => {
    expectRefused(chain.send([await chain.initializeIx(DEFAULT_PARAMS, { authority: chain.admin.publicKey })], [chain.admin]), 'NotUpgradeAuthority');
    const thief = stranger(chain);
    const own = await chain.initializeIx(DEFAULT_PARAMS, { authority: thief.publicKey, admin: thief.publicKey });
    expectRefused(chain.send([own], [thief]), 'NotUpgradeAuthority');
    expect(chain.readAccount(chain.config)).toBeNull();
  });

  it('cannot pass its own upgradeable program (where it is the authority) as the program', async () => {
    const thief = stranger(chain);
    const decoy = Keypair.generate().publicKey;
    chain.svm.addProgram(address(decoy.toBase58()), readFileSync(PROGRAM_SO_PATH));
    chain.setUpgradeAuthority(thief.publicKey, decoy);
    const ix = await chain.initializeIx(DEFAULT_PARAMS, { authority: thief.publicKey, program: decoy, programData: programDataPda(decoy)[0] });
    expectRefused(chain.send([ix], [thief]), 'InvalidProgramAccount');
    // The real program with the decoy's ProgramData (naming the thief): not the address the program names.
    const mixed = await chain.initializeIx(DEFAULT_PARAMS, { authority: thief.publicKey, programData: programDataPda(decoy)[0] });
    expectRefused(chain.send([mixed], [thief]), 'InvalidProgramData');
  });

  it('cannot bring a forged ProgramData at another address, even owned by the loader', async () => {
    const thief = stranger(chain);
    const forged = forgeCopy(chain, chain.programData, (data) => data.set(thief.publicKey.toBytes(), 13));
    expect(chain.readAccount(forged)!.owner).toBe(UPGRADEABLE_LOADER_ID.toBase58());
    const ix = await chain.initializeIx(DEFAULT_PARAMS, { authority: thief.publicKey, programData: forged });
    expectRefused(chain.send([ix], [thief]), 'InvalidProgramData');
  });

  it('a ProgramData not owned by the loader is refused, even at the right address and naming the signer', async () => {
    const real = chain.readAccount(chain.programData)!;
    writeAccount(chain, chain.programData, { owner: SystemProgram.programId, data: real.data, lamports: real.lamports });
    expectRefused(chain.send([await chain.initializeIx()], [chain.authority]), 'InvalidProgramData');
    writeAccount(chain, chain.programData, { owner: TOKEN_PROGRAM_ID, data: real.data, lamports: real.lamports });
    expectRefused(chain.send([await chain.initializeIx()], [chain.authority]), 'InvalidProgramData');
  });

  it('nobody initializes an immutable program (upgrade authority None)', async () => {
    chain.setUpgradeAuthority(null);
    expectRefused(chain.send([await chain.initializeIx()], [chain.authority]), 'NotUpgradeAuthority');
    const data = chain.readAccount(chain.programData)!.data;
    expect(data[12]).toBe(0);
    expect(data.subarray(13, 45).every((b) => b === 0)).toBe(true);
  });

  it('cannot make a config at a non-PDA address', async () => {
    const fake = Keypair.generate();
    const ix = patchAccount(await chain.initializeIx(DEFAULT_PARAMS, { config: fake.publicKey }), 'initialize', 'config', { isSigner: true });
    expectRefused(chain.send([ix], [chain.authority, fake]), 'InvalidPda');
  });

  it('cannot record a mint that is not an SPL mint', async () => {
    expectRefused(chain.send([await chain.initializeIx(DEFAULT_PARAMS, { mint: chain.admin.publicKey })], [chain.authority]), 'InvalidAccountOwner');
  });

  it('cannot record a vault of another mint', async () => {
    const other = newChain();
    const foreignVault = tokenAccountAt(chain, chain.config, other.mint);
    expectRefused(chain.send([await chain.initializeIx(DEFAULT_PARAMS, { vault: foreignVault })], [chain.authority]), 'InvalidMint');
  });

  it('cannot record a vault it controls', async () => {
    const own = tokenAccountAt(chain, chain.admin.publicKey, chain.mint);
    expectRefused(chain.send([await chain.initializeIx(DEFAULT_PARAMS, { vault: own })], [chain.authority]), 'InvalidTokenOwner');
  });

  it('cannot substitute the token or system program', async () => {
    expectRefused(chain.send([await chain.initializeIx(DEFAULT_PARAMS, { tokenProgram: PROGRAM_ID })], [chain.authority]), 'InvalidProgramId');
    expectRefused(chain.send([await chain.initializeIx(DEFAULT_PARAMS, { systemProgram: PROGRAM_ID })], [chain.authority]), 'InvalidProgramId');
  });
});
