/**
 * Binance's signed account reads under /api/v3 (docs/exchange-api.md#binance-account): `account`
 * with the signer's balances `{asset, free, locked}` (`locked`: what its open orders hold) and
 * commission rates from its maker and taker fee rates. A
 * key reaches only its own account; a key whose account is gone is refused like an unknown key.
 */
import { dec } from '../../machines/exchange/money.ts';
import { assetBalances } from '../../runtime/binance/balances.ts';
import type { BinanceContext } from '../../runtime/binance/context.ts';
import type { Router } from '../http/router.ts';
import { binance } from './errors.ts';
import { binanceRoute } from './route.ts';
import { commissionRatesOf } from './commission.ts';

/** Mounts the signed account routes. */
export function mountBinanceAccountRoutes(router: Router, ctx: BinanceContext): void {
  binanceRoute(router, ctx, 'GET', '/api/v3/account', { weight: 20, params: ['omitZeroBalances'], signed: true }, async (p, signer, now) => {
    const omit = p.raw('omitZeroBalances') ?? 'false';
    if (omit !== 'true' && omit !== 'false') throw binance.invalidParam('omitZeroBalances');
    const loaded = signer && (await ctx.exchange.store.load(signer.accountId));
    if (!loaded) throw binance.rejectedKey();
    const { account, balances } = loaded.bundle;
    const rates = commissionRatesOf(account);
    const all = assetBalances(balances);
    return {
      makerCommission: rates.makerBips,
      takerCommission: rates.takerBips,
      buyerCommission: 0,
      sellerCommission: 0,
      commissionRates: { maker: rates.maker, taker: rates.taker, buyer: '0.00000000', seller: '0.00000000' },
      canTrade: true,
      canWithdraw: false,
      canDeposit: false,
      brokered: false,
      requireSelfTradePrevention: false,
      preventSor: false,
      updateTime: now,
      accountType: 'SPOT',
      balances: omit === 'true' ? all.filter((b) => !dec(b.free).plus(dec(b.locked)).isZero()) : all,
      permissions: ['SPOT'],
    };
  });
}
