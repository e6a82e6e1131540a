import { describe, expect, it } from 'vitest';
import { log } from '../../../kernel/log.ts';
import { JsonRpcDispatcher } from './json-rpc.ts';
import { RpcFailure } from './rpc-failure.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const dispatcher = new JsonRpcDispatcher(
  {
    echo: (p) => p,
    later: async (p) => {
      await sleep(5);
      return p.length;
    },
    refuse: () => {
      throw new RpcFailure(-32002, 'Transaction simulation failed: Blockhash not found', { err: 'BlockhashNotFound', logs: [] });
    },
    broken: () => {
      throw new Error('boom');
    },
  },
  log.child({ level: 'silent' }),
);
const ask = async (text: string) => JSON.parse(await dispatcher.handleText(text)) as unknown;

describe('JsonRpcDispatcher', () => {
  it('answers results, async results and refusals with their data', async () => {
    expect(await ask('{"jsonrpc":"2.0","id":"x","method":"echo","params":[1,"a"]}')).toEqual({ jsonrpc: '2.0', result: [1, 'a'], id: 'x' });
    expect(await ask('{"jsonrpc":"2.0","id":2,"method":"later","params":[1,2,3]}')).toEqual({ jsonrpc: '2.0', result: 3, id: 2 });
    expect(await ask('{"jsonrpc":"2.0","id":3,"method":"refuse"}')).toEqual({
      jsonrpc: '2.0',
      error: { code: -32002, message: 'Transaction simulation failed: Blockhash not found', data: { err: 'BlockhashNotFound', logs: [] } },
      id: 3,
    });
  });

  it('turns a failing method into -32603 instead of crashing', async () => {
    expect(await ask('{"jsonrpc":"2.0","id":4,"method":"broken"}')).toMatchObject({ error: { code: -32603 }, id: 4 });
  });

  it('answers parse errors, invalid requests, unknown methods and non-array params', async () => {
    expect(await ask('nope')).toMatchObject({ error: { code: -32700 }, id: null });
    expect(await ask('{"jsonrpc":"2.0","id":{"x":1},"method":"echo"}')).toMatchObject({ error: { code: -32600 }, id: null });
    expect(await ask('{"jsonrpc":"2.0","id":5,"method":"__proto__"}')).toMatchObject({ error: { code: -32601 }, id: 5 });
    expect(await ask('{"jsonrpc":"2.0","id":6,"method":"echo","params":{"a":1}}')).toMatchObject({ error: { code: -32602 }, id: 6 });
    expect(await ask('[1,{"jsonrpc":"2.0","id":7,"method":"echo"}]')).toEqual([
      { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id: null },
      { jsonrpc: '2.0', result: [], id: 7 },
    ]);
  });
});
