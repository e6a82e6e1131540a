/* Custom error codes, Anchor style (6000 + index), exactly as listed in idl/updown.json "errors". */
#ifndef UPDOWN_ERRORS_H
#define UPDOWN_ERRORS_H
#include "sol.h"

#define ERR_ALREADY_INITIALIZED 6000
#define ERR_NOT_INITIALIZED 6001
#define ERR_UNAUTHORIZED 6002
#define ERR_MISSING_SIGNATURE 6003
#define ERR_INVALID_PDA 6004
#define ERR_INVALID_ACCOUNT_OWNER 6005
#define ERR_INVALID_MINT 6006
#define ERR_INVALID_TOKEN_OWNER 6007
#define ERR_INVALID_VAULT 6008
#define ERR_INVALID_PROGRAM_ID 6009
#define ERR_ACCOUNT_NOT_WRITABLE 6010
#define ERR_INVALID_INSTRUCTION_DATA 6011
#define ERR_INVALID_PARAMETERS 6012
#define ERR_PAUSED 6013
#define ERR_AMOUNT_TOO_SMALL 6014
#define ERR_AMOUNT_TOO_LARGE 6015
#define ERR_INVALID_SIDE 6016
#define ERR_INVALID_PRICE 6017
#define ERR_BET_ID_MISMATCH 6018
#define ERR_OPEN_BET_EXISTS 6019
#define ERR_BET_NOT_EXPIRED 6020
#define ERR_BET_ALREADY_CLOSED 6021
#define ERR_BETTOR_MISMATCH 6022
#define ERR_INVALID_ACCOUNT_DATA 6023
#define ERR_MATH_OVERFLOW 6024
#define ERR_NOT_ENOUGH_ACCOUNTS 6025
#define ERR_DELEGATE_MISSING 6026
#define ERR_VAULT_INSUFFICIENT 6027

#define ERR_FIRST 6000
#define ERR_LAST 6027

/* Logs "AnchorError occurred. Error Code: <name>. Error Number: <n>. Error Message: <msg>."
 * (the line Anchor clients parse) and returns `code` unchanged. */
u64 fail(u64 code);

#endif
