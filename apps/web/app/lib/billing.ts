import { TOPUP_MIN_CENTS, endpoints, formatPrice, type BillingInfo } from '@spawnpoint/contracts';
import { call } from './api.ts';
import { openDialog, type ConfirmOptions } from './dialogs.ts';

export const getBillingInfo = () => call(endpoints.billingInfo, {});
export const putBillingInfo = (info: BillingInfo) => call(endpoints.billingInfoUpdate, { body: info });
export const getTransactions = (page = 1) => call(endpoints.transactions, { query: { page } });
/** `background`: a page waiting on the provider asks again quietly. */
export const getTopup = (paymentId: string, options: { background?: boolean } = {}) =>
  call(endpoints.topup, { params: { paymentId } }, { background: options.background ?? false });
export const completeSandbox = (paymentId: string, outcome: 'pay' | 'decline' | 'abandon') =>
  call(endpoints.sandboxCheckoutComplete, { params: { paymentId }, body: { outcome } });

/**
 * Starts a top-up with a key made for this attempt: a second click or a retried request answers the same
 * payment instead of a second one.
 */
export const startTopup = (amountCents: number, idempotencyKey: string) =>
  call(endpoints.topupCreate, { body: { amountCents, idempotencyKey } });

/** A fresh idempotency key (one per attempt of a payment or purchase). */
export const newIdempotencyKey = () => crypto.randomUUID().replaceAll('-', '');

/**
 * The confirmation of something paid from the balance. Before it, what would refuse the payment is said in
 * words with a way on: no billing information (spec: BILLING_INFO_REQUIRED) or too little balance
 * (INSUFFICIENT_BALANCE) lead to Account → Billing, instead of a Pay button that can only fail. `balance`
 * reads the balance afresh (a top-up in another tab counts); the payment's own answer stays the last word.
 */
export async function confirmPurchase(
  purchase: ConfirmOptions & { chargeCents: number },
  balance: () => Promise<number | null>,
  goToBilling: () => void,
): Promise<void> {
  const { chargeCents, ...confirm } = purchase;
  const [info, balanceCents] = await Promise.all([
    call(endpoints.billingInfo, {}, { background: true }).then(
      (r) => r.billingInfo,
      () => undefined, // unknown: the payment's answer says it if it is missing
    ),
    balance().catch(() => null),
  ]);
  if (info === null) {
    openDialog('confirm', {
      title: 'Add your billing information first',
      message:
        'Purchases are paid from your balance, and every payment gets a receipt made out to your billing information. Add it on Account → Billing, top up your balance there, then come back to buy.',
      confirmLabel: 'Go to Billing',
      onConfirm: goToBilling,
    });
    return;
  }
  if (balanceCents !== null && balanceCents < chargeCents) {
    openDialog('confirm', {
      title: 'Top up your balance first',
      message: `This costs ${formatPrice(chargeCents)} and your balance is ${formatPrice(balanceCents)}. Top up on Account → Billing (from ${formatPrice(Math.max(TOPUP_MIN_CENTS, chargeCents - balanceCents))}), then come back to buy.`,
      confirmLabel: 'Go to Billing',
      onConfirm: goToBilling,
    });
    return;
  }
  openDialog('confirm', confirm);
}
