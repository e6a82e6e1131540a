/**
 * The gateway's chain port over Solana JSON-RPC (design: "The local chain": the gateway
 * always talks JSON-RPC, to the local chain or to a real validator). The operator key is
 * admin, relayer, fee payer and (for the local test mint) mint authority.
 */
import * as v from 'valibot';
import { Keypair, PublicKey } from '@solana/web3.js';
import { createAssociatedTokenAccountIdempotentInstruction, createMintToInstruction } from '@solana/spl-token';
import { fetchAccount, fetchAccounts, fetchProgramAccounts, tokenAmount } from './accounts.ts';
import { classifyGenesis } from './cluster.ts';
import {
  BET_BETTOR_OFFSET,
  BET_DISCRIMINATOR,
  BET_SIZE,
  BET_STATUS_OFFSET,
  PROGRAM_ID,
  betAddress,
  bettorAddress,
  closeBetIx,
  configAddress,
  decodeBet,
  decodeConfig,
  decodeOpenBetId,
  initializeIx,
  placeBetIx,
  setPausedIx,
  tokenAccountOf,
} from './codec.ts';
import { fundFromFaucet } from './faucet.ts';
import { PlacementLane } from './placement-lane.ts';
import {
  ChainUnavailable,
  ProgramRefusal,
  type Balance,
  type BetAccount,
  type ChainPort,
  type Closed,
  type ClusterKind,
  type ContractConfig,
  type InitParams,
  type PlaceBet,
  type Placed,
} from './port.ts';
import { HttpTransport, RpcClient, type JsonRpcTransport } from './rpc-client.ts';
import { TxSender } from './tx-sender.ts';

/** Bet accounts: their size and discriminator (getProgramAccounts filters; status 0 at 1 byte is '1' in base58). */
const BET_FILTERS = [{ dataSize: BET_SIZE }, { memcmp: { offset: 0, bytes: BET_DISCRIMINATOR } }];

/** Account data that does not decode is the chain answering garbage. */
function decoded<T>(what: string, decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    throw new ChainUnavailable(`chain returned a ${what} account that does not decode`, { cause: err });
  }
}

/** BetIdMismatch: another writer took the id we used. */
const BET_ID_MISMATCH = 6018;
/** tokens minted into the vault when the adapter initialises a contract (1,000,000 of a 6-decimal mint) */
export const VAULT_FUNDING = 1_000_000n * 1_000_000n;

/** How to reach the chain, and as whom. */
export interface RpcChainOptions {
  /** JSON-RPC endpoint (or give `transport`) */
  url?: string;
  transport?: JsonRpcTransport;
  /** admin, relayer, fee payer; mint authority of the test mint */
  operator: Keypair;
  /** mint used by `initialize` (after that the config's mint is used) */
  mint?: PublicKey;
  /** genesis hashes of chains known to be test chains ('local') */
  knownLocalGenesis?: string[];
  /** per-request timeout (default 10 s) */
  timeoutMs?: number;
  /** confirmation deadline (default 30 s) */
  confirmTimeoutMs?: number;
  /** pause between status polls (default 200 ms) */
  pollMs?: number;
  /** tokens minted into the vault on initialize (default VAULT_FUNDING; 0 skips) */
  vaultFunding?: bigint;
  /** attempts of a placement that meets BetIdMismatch (default 8) */
  placeAttempts?: number;
}

/** ChainPort over JSON-RPC. */
export class RpcChain implements ChainPort {
  readonly rpc: RpcClient;
  private readonly sender: TxSender;
  private readonly operator: Keypair;
  private readonly lane = new PlacementLane();
  private statics: { mint: PublicKey; vault: PublicKey } | null = null;
  private readonly faucetGrants = new Map<string, Promise<string>>();
  private genesis: string | null = null;

  constructor(private readonly opts: RpcChainOptions) {
    const transport = opts.transport ?? (opts.url ? new HttpTransport(opts.url, opts.timeoutMs ?? 10_000) : null);
    if (!transport) throw new Error('RpcChain needs a url or a transport');
    this.rpc = new RpcClient(transport);
    this.operator = opts.operator;
    this.sender = new TxSender(this.rpc, { confirmTimeoutMs: opts.confirmTimeoutMs ?? 30_000, pollMs: opts.pollMs ?? 200, blockhashTtlMs: 2_000 });
  }

  async readConfig(): Promise<ContractConfig | null> {
    const acc = await fetchAccount(this.rpc, configAddress());
    if (!acc || acc.owner !== PROGRAM_ID.toBase58()) return null;
    const config = decoded('config', () => decodeConfig(acc.data));
    this.statics ??= { mint: new PublicKey(config.mint), vault: new PublicKey(config.vault) };
    return config;
  }

  async readBet(id: bigint): Promise<BetAccount | null> {
    const acc = await fetchAccount(this.rpc, betAddress(id));
    return acc && acc.owner === PROGRAM_ID.toBase58() ? decoded(`bet ${id}`, () => decodeBet(acc.data)) : null;
  }

  async readOpenBetId(bettor: PublicKey): Promise<bigint | null> {
    const acc = await fetchAccount(this.rpc, bettorAddress(bettor));
    return acc && acc.owner === PROGRAM_ID.toBase58() ? decoded('bettor account', () => decodeOpenBetId(acc.data)) : null;
  }

  async scanOpenBets(): Promise<BetAccount[]> {
    const found = await fetchProgramAccounts(this.rpc, PROGRAM_ID, [...BET_FILTERS, { memcmp: { offset: BET_STATUS_OFFSET, bytes: '1' } }]);
    return found.map((f) => decoded('bet', () => decodeBet(f.account.data))).sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  async scanBetsOf(bettor: PublicKey): Promise<BetAccount[]> {
    const found = await fetchProgramAccounts(this.rpc, PROGRAM_ID, [...BET_FILTERS, { memcmp: { offset: BET_BETTOR_OFFSET, bytes: bettor.toBase58() } }]);
    return found.map((f) => decoded('bet', () => decodeBet(f.account.data))).sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  /** Creates the vault (ATA of the config PDA), funds it, and initialises the contract — one transaction. */
  async initialize(params: InitParams): Promise<string> {
    const mint = this.opts.mint ?? (await this.requireStatics()).mint;
    const config = configAddress();
    const vault = tokenAccountOf(mint, config);
    const op = this.operator.publicKey;
    const funding = this.opts.vaultFunding ?? VAULT_FUNDING;
    return this.sender.sendAndConfirm(
      'initialize',
      [
        createAssociatedTokenAccountIdempotentInstruction(op, vault, config, mint),
        ...(funding > 0n ? [createMintToInstruction(mint, vault, op, funding)] : []),
        initializeIx({ admin: op, relayer: op, mint, vault }, params),
      ],
      this.operator,
    );
  }

  async placeBet(bet: PlaceBet): Promise<Placed> {
    const { mint, vault } = await this.requireStatics();
    const bettor = bet.stake.kind === 'signer' ? bet.stake.bettor.publicKey : bet.stake.bettor;
    const signers = bet.stake.kind === 'signer' ? [bet.stake.bettor] : [];
    const bettorToken = tokenAccountOf(mint, bettor);
    return this.placing('place_bet', async (betId) => {
      const ixs = [placeBetIx({ betId, bettor, bettorToken, vault, relayer: this.operator.publicKey, delegated: bet.stake.kind === 'delegate' }, bet.side, bet.amount, bet.entryPrice)];
      const signature = await this.sender.send('place_bet', ixs, this.operator, signers);
      return { signature, betId };
    });
  }

  async closeBet(id: bigint, exitPrice: bigint): Promise<Closed> {
    const { mint, vault } = await this.requireStatics();
    const bet = await this.requireBet(id);
    const bettor = new PublicKey(bet.bettor);
    const ix = closeBetIx({ betId: id, bettor, bettorToken: tokenAccountOf(mint, bettor), vault, relayer: this.operator.publicKey }, exitPrice);
    const signature = await this.sender.sendAndConfirm('close_bet', [ix], this.operator);
    return { signature, status: (await this.requireBet(id)).status };
  }

  async closeAndReplace(id: bigint, exitPrice: bigint, bettor: Keypair, entryPrice: bigint): Promise<{ closed: Closed; placed: Placed }> {
    const { mint, vault } = await this.requireStatics();
    const bet = await this.requireBet(id);
    const bettorToken = tokenAccountOf(mint, bettor.publicKey);
    const relayer = this.operator.publicKey;
    const placed = await this.placing('close_bet + place_bet', async (betId) => {
      const ixs = [
        closeBetIx({ betId: id, bettor: bettor.publicKey, bettorToken, vault, relayer }, exitPrice),
        placeBetIx({ betId, bettor: bettor.publicKey, bettorToken, vault, relayer, delegated: false }, bet.side, bet.amount, entryPrice),
      ];
      const signature = await this.sender.send('close_bet + place_bet', ixs, this.operator, [bettor]);
      return { signature, betId };
    });
    const closedBet = await this.requireBet(id);
    return { closed: { signature: placed.signature, status: closedBet.status }, placed };
  }

  async setPaused(paused: boolean): Promise<string> {
    return this.sender.sendAndConfirm('set_paused', [setPausedIx(this.operator.publicKey, paused)], this.operator);
  }

  faucet(address: PublicKey): Promise<string> {
    const key = address.toBase58();
    // six concurrent identical requests are one grant, not six racing half-grants
    let grant = this.faucetGrants.get(key);
    if (!grant) {
      grant = this.grant(address).finally(() => this.faucetGrants.delete(key));
      this.faucetGrants.set(key, grant);
    }
    return grant;
  }

  private async grant(address: PublicKey): Promise<string> {
    const mint = this.statics?.mint ?? (await this.readConfig().then((c) => (c ? new PublicKey(c.mint) : this.opts.mint)));
    if (!mint) throw new Error('faucet: no mint known (contract not initialised and no mint configured)');
    return fundFromFaucet(this.rpc, this.sender, this.operator, mint, address);
  }

  async ping(): Promise<void> {
    await this.rpc.call('getSlot', [{ commitment: 'confirmed' }], v.number());
  }

  async balances(address: PublicKey): Promise<Balance> {
    const { mint } = await this.requireStatics();
    const [wallet, token] = await fetchAccounts(this.rpc, [address, tokenAccountOf(mint, address)]);
    return { lamports: wallet?.lamports ?? 0n, tokenUnits: tokenAmount(token ?? null) };
  }

  async vaultBalance(): Promise<bigint> {
    const { vault } = await this.requireStatics();
    return tokenAmount(await fetchAccount(this.rpc, vault));
  }

  async genesisHash(): Promise<string> {
    this.genesis ??= await this.rpc.call('getGenesisHash', [], v.pipe(v.string(), v.minLength(32)));
    return this.genesis;
  }

  async clusterKind(): Promise<ClusterKind> {
    return classifyGenesis(await this.genesisHash(), this.opts.knownLocalGenesis ?? []);
  }

  /** Sends a transaction that consumes the next bet id on the lane, retrying on BetIdMismatch, then confirms it. */
  private async placing(what: string, send: (betId: bigint) => Promise<Placed>): Promise<Placed> {
    const attempts = this.opts.placeAttempts ?? 8;
    for (let attempt = 1; ; attempt++) {
      try {
        const placed = await this.lane.run(
          async () => (await this.requireConfig()).nextBetId,
          async (betId) => ({ result: await send(betId), used: 1 }),
        );
        await this.sender.confirm(what, placed.signature).catch((err: unknown) => {
          this.lane.forget();
          throw err;
        });
        return placed;
      } catch (err) {
        if (err instanceof ProgramRefusal && err.code === BET_ID_MISMATCH && attempt < attempts) continue;
        throw err;
      }
    }
  }

  private async requireConfig(): Promise<ContractConfig> {
    const config = await this.readConfig();
    if (!config) throw new ProgramRefusal(6001, 'NotInitialized', 'The config account is not initialised');
    return config;
  }

  private async requireStatics(): Promise<{ mint: PublicKey; vault: PublicKey }> {
    if (this.statics) return this.statics;
    await this.requireConfig();
    if (!this.statics) throw new Error('config read did not record mint and vault');
    return this.statics;
  }

  private async requireBet(id: bigint): Promise<BetAccount> {
    const bet = await this.readBet(id);
    if (!bet) throw new ProgramRefusal(6023, 'InvalidAccountData', `bet ${id} does not exist`);
    return bet;
  }
}
