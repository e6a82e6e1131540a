/* Error log lines in the format Anchor clients parse, so a refusal reads the same as from an Anchor program. */
#include "errors.h"

typedef struct {
  const char *name;
  const char *msg;
} ErrorText;

/* Index = code - 6000; names and messages are the IDL's, word for word. */
static const ErrorText ERROR_TEXTS[ERR_LAST - ERR_FIRST + 1] = {
    {"AlreadyInitialized", "The contract is already initialised"},
    {"NotInitialized", "The config account is not initialised"},
    {"Unauthorized", "The signer is not the configured admin or relayer"},
    {"MissingSignature", "A required signer did not sign"},
    {"InvalidPda", "An account is not the expected program-derived address"},
    {"InvalidAccountOwner", "An account is owned by the wrong program"},
    {"InvalidMint", "A token account holds the wrong mint"},
    {"InvalidTokenOwner", "A token account has the wrong owner"},
    {"InvalidVault", "The vault is not the configured vault"},
    {"InvalidProgramId", "The token or system program account is not the expected program"},
    {"AccountNotWritable", "An account that must be writable is not"},
    {"InvalidInstructionData", "The instruction data cannot be decoded"},
    {"InvalidParameters", "min_amount, max_amount, multiplier_bps, expiry_seconds or refund_after_seconds is out of range"},
    {"Paused", "Bet intake is paused"},
    {"AmountTooSmall", "The amount is below min_amount"},
    {"AmountTooLarge", "The amount is above max_amount"},
    {"InvalidSide", "side must be 0 (UP) or 1 (DOWN)"},
    {"InvalidPrice", "A price must be greater than zero"},
    {"BetIdMismatch", "Reserved: no longer raised (bet ids are not instruction arguments any more)"},
    {"OpenBetExists", "The bettor already has an open bet"},
    {"BetNotExpired", "The bet has not expired yet"},
    {"BetAlreadyClosed", "The bet is already closed"},
    {"BettorMismatch", "The account does not belong to the bet's bettor"},
    {"InvalidAccountData", "An account's data has the wrong size or discriminator"},
    {"MathOverflow", "Arithmetic overflow"},
    {"NotEnoughAccounts", "The instruction was given fewer accounts than it needs"},
    {"DelegateMissing", "The relayer is not the SPL Token delegate of the bettor's token account for the amount"},
    {"VaultInsufficient", "The vault holds less than the payout"},
    {"RolesNotDistinct", "The admin and the relayer must be different keys"},
    {"InvalidProgramAccount", "The program account is not this program's upgradeable loader Program account"},
    {"InvalidProgramData", "The program data account is not this program's ProgramData account"},
    {"NotUpgradeAuthority", "The signer is not the program's upgrade authority, or the program has none"},
    {"NoPendingAdmin", "No admin change is pending"},
    {"NotPendingAdmin", "The signer is not the pending admin"},
    {"VaultCannotCover", "The vault with this stake would not cover the payouts of every open bet"},
    {"WithdrawBelowLiability", "The withdrawal would leave the vault below the payouts of the open bets"},
    {"RefundNotYetAllowed", "The bet cannot be refunded before expire_time + refund_after_seconds"},
    {"BetStillOpen", "The bet is still open"},
    {"BettorNotIdle", "The bettor state has an open bet or bet accounts not yet reclaimed"},
    {"PayerMismatch", "The account is not the payer recorded for the rent"},
    {"PriceTickMissing", "Signed prices are required and the transaction carries no Ed25519 instruction for the tick"},
    {"InvalidInstructionsSysvar", "The account passed as the instructions sysvar is not the instructions sysvar"},
    {"InvalidPriceTick", "The Ed25519 instruction does not verify a price tick of this feed in its own data"},
    {"UntrustedPriceSigner", "The tick's signer is not a trusted, unexpired price signer"},
    {"PriceTickMismatch", "The price does not match the verified tick"},
    {"PriceTickTooOld", "The entry tick is older than the allowed age"},
    {"NotLastTickBeforeExpiry", "The ticks do not straddle the expiry: ts(n) <= expire_time < ts(n+1) does not hold"},
    {"PriceTicksNotConsecutive", "The two ticks are not consecutive ticks of one signer"},
    {"PriceTickStale", "The last tick before expiry is more than 30 s older than the expiry"},
    {"PriceTickReplayed", "The entry tick is more than 8 ticks older than one a bet already opened at"},
    {"TooManyPriceSigners", "The price rules hold the most signers they can"},
    {"IntentMissing", "place_bet_delegated needs the bettor's signed intent: an Ed25519 instruction earlier in the transaction"},
    {"IntentSignerMismatch", "the intent is not signed by the bettor"},
    {"IntentMismatch", "the signed intent is for another bet: program, config, bettor, side, amount, bet number or valid-until differ"},
    {"IntentExpired", "the intent's valid-until time has passed"},
};

static u64 append(char *buf, u64 at, u64 cap, const char *text) {
  for (u64 i = 0; text[i] != 0 && at < cap; i++) buf[at++] = text[i];
  return at;
}

static u64 append_decimal(char *buf, u64 at, u64 cap, u64 value) {
  char digits[20];
  u64 n = 0;
  do {
    digits[n++] = (char)('0' + value % 10);
    value /= 10;
  } while (value != 0);
  while (n > 0 && at < cap) buf[at++] = digits[--n];
  return at;
}

u64 fail(u64 code) {
  if (code < ERR_FIRST || code > ERR_LAST) return code;
  const ErrorText *text = &ERROR_TEXTS[code - ERR_FIRST];
  char line[256];
  u64 at = 0;
  at = append(line, at, sizeof line, "AnchorError occurred. Error Code: ");
  at = append(line, at, sizeof line, text->name);
  at = append(line, at, sizeof line, ". Error Number: ");
  at = append_decimal(line, at, sizeof line, code);
  at = append(line, at, sizeof line, ". Error Message: ");
  at = append(line, at, sizeof line, text->msg);
  at = append(line, at, sizeof line, ".");
  sol_log_(line, at);
  return code;
}
