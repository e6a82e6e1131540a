/**
 * Translates LiteSVM's native transaction errors into the JSON shapes a Solana RPC node
 * returns (`"BlockhashNotFound"`, `{"InstructionError":[0,{"Custom":6018}]}`, ...), so an
 * unmodified web3.js client decodes them (docs/architecture.md#the-local-chain).
 */

/** A transaction error as JSON-RPC carries it. */
export type TxErrorJson = string | { [kind: string]: unknown };

/** Order of LiteSVM's `TransactionErrorFieldless` enum (solana-transaction-error). */
const TX_FIELDLESS = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
] as const;

/** Order of LiteSVM's `InstructionErrorFieldless` enum (solana-instruction-error). */
const IX_FIELDLESS = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
  'BorshIoError',
] as const;

type NativeIxError = number | { code: number } | { msg: string };
type NativeTxError = number | { index: number; err(): NativeIxError } | { index: number } | { accountIndex: number; constructor: { name: string } };

function instructionErrorJson(err: NativeIxError): unknown {
  if (typeof err === 'number') return IX_FIELDLESS[err] ?? 'GenericError';
  if ('code' in err) return { Custom: err.code };
  return { BorshIoError: err.msg };
}

/** JSON form of a LiteSVM `err()` value. */
export function txErrorJson(err: unknown): TxErrorJson {
  const e = err as NativeTxError;
  if (typeof e === 'number') return TX_FIELDLESS[e] ?? 'SanitizeFailure';
  if ('err' in e && typeof e.err === 'function') return { InstructionError: [e.index, instructionErrorJson(e.err())] };
  if ('index' in e) return { DuplicateInstruction: e.index };
  if ('accountIndex' in e) {
    const kind = e.constructor.name.includes('Restricted') ? 'ProgramExecutionTemporarilyRestricted' : 'InsufficientFundsForRent';
    return { [kind]: { account_index: e.accountIndex } };
  }
  return 'SanitizeFailure';
}

/** The human text a validator puts after "Transaction simulation failed: ". */
export function txErrorText(err: TxErrorJson): string {
  if (typeof err === 'string') {
    if (err === 'BlockhashNotFound') return 'Blockhash not found';
    if (err === 'AlreadyProcessed') return 'This transaction has already been processed';
    return err;
  }
  const ix = err.InstructionError;
  if (Array.isArray(ix)) {
    const [index, inner] = ix as [number, unknown];
    const custom = typeof inner === 'object' && inner !== null && 'Custom' in inner ? (inner as { Custom: number }).Custom : null;
    const what = custom !== null ? `custom program error: 0x${custom.toString(16)}` : JSON.stringify(inner);
    return `Error processing Instruction ${index}: ${what}`;
  }
  return JSON.stringify(err);
}
