// "Bet with your wallet" (docs/gateway-api.md#bet-with-your-wallet): the player's own browser wallet,
// found through the wallet standard, connects an account; a bet is then the gateway's Solana Action:
// the gateway builds the placement (signed by its relayer), the wallet signs it as the bettor and
// sends it. The page learns of the bet as of any other, from the event stream.
import { getWallets } from '/ui/wallet-standard.js';
import { el, errorText, request } from '/ui/shared/dom.js';
import { base58Of } from '/ui/verify.js';

const CONNECT = 'standard:connect';
const SIGN_AND_SEND = 'solana:signAndSendTransaction';

/** Whether a registered wallet can connect and sign-and-send Solana transactions. */
const usable = (wallet) => Boolean(wallet.features?.[CONNECT] && wallet.features?.[SIGN_AND_SEND] && wallet.chains?.some((c) => c.startsWith('solana:')));

const bytesOfBase64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/**
 * The wallet path of the page: a "connect" button per browser wallet in `row`; once one is
 * connected, `onAccount(address)` is told, and `bet(side, amount)` goes through the wallet.
 * @param {{ row: HTMLElement, say: (text: string, error?: boolean) => void, onAccount: (address: string) => Promise<void> }} options
 */
export function walletPath({ row, say, onAccount }) {
  let connected = null; // { wallet, account }
  const render = () => {
    const wallets = getWallets().get().filter(usable);
    row.hidden = wallets.length === 0;
    row.replaceChildren(
      ...wallets.map((wallet) =>
        el(
          'button',
          { dataset: { testid: 'wallet-connect', wallet: wallet.name }, onclick: () => void connect(wallet) },
          connected?.wallet === wallet ? `${wallet.name}: connected` : `Connect ${wallet.name}`,
        ),
      ),
    );
  };
  async function connect(wallet) {
    try {
      const { accounts } = await wallet.features[CONNECT].connect();
      const account = accounts[0];
      if (!account) return say(`${wallet.name} gave no account`, true);
      connected = { wallet, account };
      render();
      say(`${wallet.name} connected: bets are signed and sent by your wallet`);
      await onAccount(account.address);
    } catch (err) {
      say(`${wallet.name} did not connect: ${err instanceof Error ? err.message : String(err)}`, true);
    }
  }
  getWallets().on('register', render);
  getWallets().on('unregister', render);
  render();

  return {
    /** whether bets go through a connected wallet */
    get active() {
      return connected !== null;
    },
    /** Asks the gateway's action for the placement, has the wallet sign and send it; resolves with what to say. */
    async bet(side, amountText) {
      const { wallet, account } = connected;
      const r = await request('POST', `/api/actions/bet?side=${side}&amount=${encodeURIComponent(amountText)}`, { account: account.address });
      if (r.status !== 200) return { text: `refused (${r.status}): ${errorText(r)}`, error: true };
      const chain = account.chains?.find((c) => c.startsWith('solana:')) ?? wallet.chains.find((c) => c.startsWith('solana:'));
      try {
        const [sent] = await wallet.features[SIGN_AND_SEND].signAndSendTransaction({ account, chain, transaction: bytesOfBase64(r.body.transaction) });
        const signature = base58Of(sent.signature);
        return { text: `sent by ${wallet.name}: ${r.body.message} (tx ${signature.slice(0, 8)}…); it shows here once it lands`, signature };
      } catch (err) {
        return { text: `${wallet.name} did not send it: ${err instanceof Error ? err.message : String(err)}`, error: true };
      }
    },
  };
}
