/**
 * `npm run ops -- <command>`: the operator CLI. It reads the stores the services use (Redis at
 * `REDIS_URL` under their key prefixes, else the files in `DATA_DIR`) and the chain over
 * JSON-RPC; `retry` asks the running gateway to retry a bet series now. Tables for people,
 * `--json` for scripts. A mistake (unknown id, unreachable Redis, bad option) prints one line
 * and exits non-zero.
 *
 * @example
 *   npm run ops -- bets --stuck
 *   npm run ops -- journal 6f1c... --replay-check --json
 *   npm run ops -- verify --all
 */
import { Command, CommanderError, Option } from 'commander';
import { pathToFileURL } from 'node:url';
import {
  accountsCommand,
  betCommand,
  betsCommand,
  eventsCommand,
  followCommand,
  intentsCommand,
  journalCommand,
  orderCommand,
  ordersCommand,
  retryCommand,
  type CommandOutput,
} from '../runtime/ops/commands.ts';
import { messageOf, OpsError } from '../runtime/ops/errors.ts';
import { BetId, DEFAULT_RPC_URL, OpsOptions, parseInput, RecordId, Seconds, Seq } from '../runtime/ops/options.ts';
import { json } from '../runtime/ops/render.ts';
import { verifyCommand } from '../runtime/ops/verify.ts';

/** Output streams (tests capture them). */
export interface OpsIo {
  out: (text: string) => void;
  err: (text: string) => void;
  env: Record<string, string | undefined>;
}

/** Builds the program; `done` receives each command's exit code. */
function program(io: OpsIo, done: (code: number) => void): Command {
  const cmd = new Command('ops')
    .description('Operator CLI of the betting gateway and the exchange: reads their Redis (REDIS_URL or REDIS_CLUSTER_NODES) or DATA_DIR stores')
    .addOption(new Option('--redis-url <url>', 'Redis the services use (unset: the files in DATA_DIR)').env('REDIS_URL'))
    .addOption(new Option('--redis-sentinels <list>', 'instead of --redis-url: the Sentinels, host:port separated by commas').env('REDIS_SENTINELS'))
    .addOption(new Option('--redis-master-name <name>', 'with --redis-sentinels: the master name they monitor').env('REDIS_MASTER_NAME'))
    .addOption(new Option('--redis-cluster-nodes <host:port,...>', 'the Redis Cluster the services use, instead of --redis-url').env('REDIS_CLUSTER_NODES'))
    .addOption(new Option('--data-dir <dir>', 'data dir of the embedded stores').env('DATA_DIR').default('.data'))
    .addOption(new Option('--rpc-url <url>', 'chain JSON-RPC').env('SOLANA_RPC_URL').default(DEFAULT_RPC_URL))
    .addOption(new Option('--nats-url <url>', 'NATS of the gateways (set: events come from their shared JetStream stream)').env('NATS_URL'))
    .addOption(new Option('--event-stream <prefix>', "subject prefix of the gateways' event stream").env('GW_EVENT_STREAM').default('gw.events'))
    .option('--gateway-prefix <prefix>', 'key prefix of the gateway in Redis (default: gw:, {gw}: on a cluster)')
    .option('--exchange-prefix <prefix>', 'key prefix of the exchange in Redis', 'exchange')
    .option('--json', 'print JSON (for scripts)')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) });

  const options = (c: Command): OpsOptions => parseInput(OpsOptions, c.optsWithGlobals(), 'option');
  const print = (o: OpsOptions, output: CommandOutput) => {
    io.out(o.json ? json(output.data) : output.text);
    done(output.exitCode ?? 0);
  };
  const json_ = (c: Command) => c.option('--json', 'print JSON (for scripts)');

  json_(cmd.command('intents').description('transactions the gateway sent and has not seen land yet (key, signature, lastValidBlockHeight, age)')).action(
    async (_opts: unknown, c: Command) => {
      const o = options(c);
      print(o, await intentsCommand(o));
    },
  );

  json_(cmd.command('bets').description('live bet series (id, bettor, state, attempt, lastError, age)'))
    .option('--stuck', 'only series that failed, are retrying, or are open well past their expiry')
    .option('--state <value>', 'only series in this state (e.g. settling, settling.closingBackoff)')
    .option('--stuck-after <seconds>', 'an open chain this long past its expiry is stuck', '30')
    .action(async (opts: { stuck?: boolean; state?: string; stuckAfter: string }, c: Command) => {
      const o = options(c);
      const filter = {
        stuckAfterSeconds: parseInput(Seconds, opts.stuckAfter, '--stuck-after'),
        ...(opts.stuck ? { stuck: true } : {}),
        ...(opts.state ? { state: opts.state } : {}),
      };
      print(o, await betsCommand(o, filter));
    });

  json_(
    cmd
      .command('bet')
      .argument('<id>', 'bet series id (or the id of the bet in play)')
      .description('one bet series: persisted snapshot, the bet account on chain, settlement evidence'),
  ).action(async (id: string, _opts: unknown, c: Command) => {
    const o = options(c);
    print(o, await betCommand(o, parseInput(BetId, id, 'bet id')));
  });

  json_(
    cmd
      .command('verify')
      .argument('[id]', 'bet id (with --all: every bet on chain)')
      .description('checks settled bets from the chain and the price signer key alone: signed entry tick, exit pair, outcome (exit 1 when one fails)'),
  )
    .option('--all', 'every bet on chain')
    .option('--signer <key>', "a price signer's public key to check against, instead of the signers the contract trusts")
    .action(async (id: string | undefined, opts: { all?: boolean; signer?: string }, c: Command) => {
      const o = options(c);
      if ((id === undefined) === (opts.all !== true)) throw new OpsError('give a bet id or --all');
      print(
        o,
        await verifyCommand(o, {
          ...(id !== undefined ? { id: parseInput(BetId, id, 'bet id') } : {}),
          ...(opts.signer !== undefined ? { signer: opts.signer } : {}),
        }),
      );
    });

  json_(cmd.command('retry').argument('<id>', 'bet series id').description('makes the running gateway retry a chain waiting in a backoff now')).action(
    async (id: string, _opts: unknown, c: Command) => {
      const o = options(c);
      print(o, await retryCommand(o, parseInput(BetId, id, 'bet id')));
    },
  );

  json_(cmd.command('events').description('the gateway event log (seq, type, fields); --follow keeps printing new ones (JSON: one per line)'))
    .option('--since <seq>', 'events after this seq', '0')
    .option('--follow', 'keep printing new events until interrupted')
    .action(async (opts: { since: string; follow?: boolean }, c: Command) => {
      const o = options(c);
      const since = parseInput(Seq, opts.since, '--since');
      if (!opts.follow) return print(o, await eventsCommand(o, since));
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
      try {
        await followCommand(o, since, io.out, stop.signal);
      } finally {
        process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
      }
      done(0);
    });

  json_(cmd.command('accounts').description('exchange accounts with their stored balances')).action(async (_opts: unknown, c: Command) => {
    const o = options(c);
    print(o, await accountsCommand(o));
  });

  json_(cmd.command('orders').argument('<accountId>').description('orders of an account, newest first (orderId, state, ...)'))
    .option('--limit <n>', 'at most this many', '100')
    .action(async (accountId: string, opts: { limit: string }, c: Command) => {
      const o = options(c);
      print(o, await ordersCommand(o, parseInput(RecordId, accountId, 'account id'), parseInput(Seconds, opts.limit, '--limit')));
    });

  json_(cmd.command('order').argument('<accountId>').argument('<orderId>').description('one order with its fills and its actor state')).action(
    async (accountId: string, orderId: string, _opts: unknown, c: Command) => {
      const o = options(c);
      print(o, await orderCommand(o, parseInput(RecordId, accountId, 'account id'), parseInput(RecordId, orderId, 'order id')));
    },
  );

  json_(
    cmd
      .command('journal')
      .argument('<accountId>')
      .description("an account's journal; --replay-check replays it and compares with the stored balances (exit 1 when they differ)"),
  )
    .option('--replay-check', 'replay the journal and compare with the stored balances')
    .action(async (accountId: string, opts: { replayCheck?: boolean }, c: Command) => {
      const o = options(c);
      print(o, await journalCommand(o, parseInput(RecordId, accountId, 'account id'), opts.replayCheck === true));
    });

  return cmd;
}

/** Runs the CLI on `argv` (without node and script); resolves with the exit code. */
export async function runOps(
  argv: readonly string[],
  io: OpsIo = { out: (s) => console.log(s), err: (s) => console.error(s), env: process.env },
): Promise<number> {
  let code = 0;
  try {
    await program(io, (c) => (code = c)).parseAsync([...argv], { from: 'user' });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode; // commander printed its message (or the help)
    if (err instanceof OpsError) {
      io.err(`error: ${err.message}`);
      return err.exitCode;
    }
    io.err(`error: ${messageOf(err)}`);
    if (io.env.OPS_DEBUG) io.err(err instanceof Error ? (err.stack ?? '') : '');
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await runOps(process.argv.slice(2));
}
