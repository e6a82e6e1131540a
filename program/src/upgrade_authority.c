/* Only the program's upgrade authority may initialise: the upgradeable loader's Program account
 * (this program id) names its ProgramData account, which holds Some(upgrade authority). Both are
 * owned by the loader, so only the loader could have written what is read here. */
#include "errors.h"
#include "instructions.h"

static u32 read_u32(const u8 *p) { return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24; }

u64 require_upgrade_authority(const SolAccountInfo *program, const SolAccountInfo *program_data,
                              const SolAccountInfo *signer, const SolPubkey *program_id) {
  if (!key_eq(program->key, program_id) || !key_eq(program->owner, &UPGRADEABLE_LOADER_ID) ||
      account_data_len(program) < LOADER_PROGRAM_LEN || read_u32(program->data) != LOADER_STATE_PROGRAM)
    return fail(ERR_INVALID_PROGRAM_ACCOUNT);
  const SolPubkey *data_address = (const SolPubkey *)(program->data + LOADER_PROGRAM_DATA_ADDRESS_OFFSET);
  if (!key_eq(program_data->key, data_address) || !key_eq(program_data->owner, &UPGRADEABLE_LOADER_ID) ||
      account_data_len(program_data) < LOADER_PROGRAM_DATA_HEADER_LEN ||
      read_u32(program_data->data) != LOADER_STATE_PROGRAM_DATA)
    return fail(ERR_INVALID_PROGRAM_DATA);
  const SolPubkey *authority = (const SolPubkey *)(program_data->data + LOADER_AUTHORITY_OFFSET);
  if (program_data->data[LOADER_AUTHORITY_TAG_OFFSET] != 1 || !key_eq(authority, signer->key))
    return fail(ERR_NOT_UPGRADE_AUTHORITY);
  return 0;
}
