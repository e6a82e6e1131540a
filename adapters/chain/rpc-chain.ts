/**
 * The JSON-RPC chain port's former path, kept only so that bin/ and bench/ (changed elsewhere at the
 * moment) still resolve it: the port is in rpc-chain/ (docs/architecture.md#the-chain-mirror).
 * New imports name `rpc-chain/index.ts`.
 */
export { RpcChain, VAULT_FUNDING, pubsubUrlOf, type ChainKeys, type RpcChainOptions } from './rpc-chain/index.ts';
