/**
 * The updown program as the gateway sees it: IDL, program id, PDAs, account decoding and
 * instruction building, all driven by the IDL (docs/architecture.md#the-contract): instruction
 * data is encoded by Anchor's `BorshCoder`, accounts are read at the IDL's field offsets
 * (`account-layout.ts`, checked against the coder), and each instruction's account list — order,
 * writability, signers, fixed program addresses, the config PDA — is read from the IDL, so
 * nothing about the program's interface is written twice. Field offsets used in
 * getProgramAccounts filters are computed from the IDL layout too.
 *
 * This file is the codec's public face; the parts are in codec/: the IDL's layout and errors
 * (idl.ts), addresses (addresses.ts), account decoding (accounts.ts), instructions
 * (instructions.ts).
 */
import { PROGRAM_ID } from '../../program/index.ts';

/** The program id (re-exported from the program module). */
export { PROGRAM_ID };

export { BET_SIZE, BET_STATUS_OFFSET, errorMessage, errorName } from './codec/idl.ts';
export {
  betAddress,
  betAddressName,
  bettorAddress,
  bettorAddressName,
  configAddress,
  heldBettorName,
  tokenAccountName,
  tokenAccountOf,
} from './codec/addresses.ts';
export { accountKind, decodeBet, decodeBettorState, decodeConfig } from './codec/accounts.ts';
export {
  addPriceSignerIx,
  closeBetIx,
  initializeIx,
  placeBetIx,
  reclaimBetIx,
  refundExpiredIx,
  setPausedIx,
  setPriceRulesIx,
  withdrawIx,
} from './codec/instructions.ts';
