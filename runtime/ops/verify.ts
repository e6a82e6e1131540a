/**
 * `verify <id>` and `verify --all` (docs/operations.md#checking-settled-bets): every bet the contract
 * gave an id (1 up to its next id) checked against its signed ticks (`verify-bet.ts`). The bets,
 * their prices and statuses and the trusted signers are read from the chain; the signed ticks come
 * from the gateway's bet history, but each is checked against its signer's key, so nothing the
 * gateway says is taken on trust. A bet whose account was reclaimed is checked against the prices
 * its history record holds (its ticks must still be the signer's and give its outcome).
 * `--signer <key>` checks against that key instead of the signers the contract trusts now.
 * Exit code 1 when a bet fails a check.
 */
import { PublicKey } from '@solana/web3.js';
import { configAddress, decodeBet, decodeConfig, PROGRAM_ID } from '../../adapters/chain/codec.ts';
import { fetchAccount } from '../../adapters/chain/account-reads.ts';
import type { BetRecord } from '../../adapters/store/bet-history/port.ts';
import { BET_DISCRIMINATOR, BET_SIZE } from '../../adapters/chain/codec/idl.ts';
import { ProgramAccounts } from '../../adapters/chain/mirror/wire.ts';
import { readPriceRules } from '../../adapters/chain/price-rules.ts';
import { HttpTransport, RpcClient } from '../../adapters/chain/rpc-client.ts';
import { withGateway, type CommandOutput } from './commands.ts';
import { messageOf, OpsError } from './errors.ts';
import type { OpsOptions } from './options.ts';
import { table } from './render.ts';
import { PRICE_RULES } from '../gateway/prices/rules.ts';
import { verifyBet, type BetVerdict, type ChainBetFacts, type PriceTrust } from './verify-bet.ts';

/**
 * One bet's check, and where its prices came from: the bet account (`chain`), or, for a bet whose
 * account was reclaimed, the gateway's history record (`record`: the signed ticks still have to
 * match the recorded prices, and the outcome the prices).
 */
export type Verdict = BetVerdict & { against: 'chain' | 'record' | 'none' };

/** Which bets to check, and against whose key. */
export interface VerifyRequest {
  /** one bet id, or every bet on chain when absent */
  id?: string;
  /** a price signer's key to check against instead of the contract's trusted signers */
  signer?: string;
}

/** The entry age when the contract has no price rules (only with `--signer`): the spec's 30 s. */
const DEFAULT_ENTRY_AGE_MS = BigInt(PRICE_RULES.maxTickAgeMs);
/** `--signer` is trusted for every bet. */
const ALWAYS = 2n ** 62n;

/** The bet accounts on chain (one id, or all), by id. */
async function chainBets(rpc: RpcClient, id: string | undefined): Promise<Map<string, ChainBetFacts>> {
  const filters: object[] = [{ dataSize: BET_SIZE }, { memcmp: { offset: 0, bytes: BET_DISCRIMINATOR } }];
  if (id !== undefined) {
    const bytes = Buffer.alloc(8);
    bytes.writeBigUInt64LE(BigInt(id));
    filters.push({ memcmp: { offset: 8, bytes: bytes.toString('base64'), encoding: 'base64' } });
  }
  const found = await rpc.call(
    'getProgramAccounts',
    [PROGRAM_ID.toBase58(), { encoding: 'base64', commitment: 'confirmed', withContext: true, filters }],
    ProgramAccounts,
  );
  const bets = new Map<string, ChainBetFacts>();
  // the filters select bet accounts only
  for (const { account } of found.value) {
    const bet = decodeBet(Buffer.from(account.data[0], 'base64'));
    bets.set(bet.id.toString(), bet);
  }
  return bets;
}

/** Every bet id the contract gave out: 1 up to the config's next id. */
async function allIds(rpc: RpcClient): Promise<string[]> {
  const config = await fetchAccount(rpc, configAddress());
  if (!config) throw new OpsError('the contract is not initialised on this chain: no bets to check', 1);
  const next = decodeConfig(config.data).nextBetId;
  const ids: string[] = [];
  for (let id = 1n; id < next; id++) ids.push(id.toString());
  return ids;
}

/** A bet known only from the history (its account was reclaimed): the prices and status the gateway recorded. */
const recordedFacts = (r: BetRecord): ChainBetFacts => ({
  id: BigInt(r.id),
  side: r.side,
  entryPrice: BigInt(r.entryPrice),
  exitPrice: BigInt(r.exitPrice),
  betTime: null,
  expireTime: BigInt(r.expireTime),
  status: r.status,
});

/** Whose ticks count: `--signer`, else the contract's price rules. */
async function priceTrust(rpc: RpcClient, signer: string | undefined): Promise<PriceTrust> {
  const rules = await readPriceRules(rpc);
  if (signer !== undefined) return { signers: [{ key: signer, expiresAt: ALWAYS }], maxEntryAgeMs: rules?.maxEntryAgeMs ?? DEFAULT_ENTRY_AGE_MS };
  if (!rules || rules.signers.length === 0)
    throw new OpsError('the contract trusts no price signer (prices are attested by the relayer): nothing to check ticks against; give --signer <key>', 1);
  return { signers: rules.signers, maxEntryAgeMs: rules.maxEntryAgeMs };
}

/** `verify <id>` / `verify --all`. */
export async function verifyCommand(o: OpsOptions, request: VerifyRequest): Promise<CommandOutput> {
  if (request.signer !== undefined) {
    try {
      new PublicKey(request.signer);
    } catch {
      throw new OpsError(`--signer ${request.signer} is not a base58 public key`);
    }
  }
  const transport = new HttpTransport(o.rpcUrl, 10_000, 1);
  const rpc = new RpcClient(transport);
  let onChain: Map<string, ChainBetFacts>;
  let ids: string[];
  let trust: PriceTrust;
  try {
    [onChain, trust, ids] = await Promise.all([
      chainBets(rpc, request.id),
      priceTrust(rpc, request.signer),
      request.id !== undefined ? Promise.resolve([request.id]) : allIds(rpc),
    ]);
  } catch (err) {
    if (err instanceof OpsError) throw err;
    throw new OpsError(`chain at ${o.rpcUrl}: ${messageOf(err)}`, 3, { cause: err });
  } finally {
    transport.close?.();
  }

  const verdicts = await withGateway(o, async (records) => {
    const out: Verdict[] = [];
    for (const id of ids) {
      const chain = onChain.get(id);
      const record = chain?.status === 0 ? null : await records.record(id);
      if (chain) out.push({ ...verifyBet(chain, record?.signed, trust), against: 'chain' });
      else if (record) out.push({ ...verifyBet(recordedFacts(record), record.signed, trust), against: 'record' });
      else if (request.id !== undefined) throw new OpsError(`no bet ${id} on the chain at ${o.rpcUrl} nor in ${records.where}`);
      else out.push({ id, verdict: 'failed', held: [], problems: ['neither on chain (reclaimed) nor in the history'], against: 'none' });
    }
    return out;
  });
  const count = (kind: Verdict['verdict']) => verdicts.filter((x) => x.verdict === kind).length;
  const fromRecords = verdicts.filter((x) => x.verdict === 'verified' && x.against === 'record').length;
  const summary = { verified: count('verified'), verifiedAgainstRecords: fromRecords, failed: count('failed'), open: count('open') };
  const rows = verdicts.map((x) => [x.id, x.verdict, x.against, x.verdict === 'failed' ? x.problems.join('; ') : x.held.join('; ')]);
  const text = [
    rows.length === 0 ? 'no bet on chain' : table(['bet', 'verdict', 'prices from', 'why'], rows),
    `${summary.verified} verified (${fromRecords} of them against the history's prices: their accounts were reclaimed), ${summary.failed} failed, ${summary.open} open (not settled yet)`,
  ].join('\n');
  return { data: { ...summary, bets: verdicts }, text, exitCode: summary.failed > 0 ? 1 : 0 };
}
