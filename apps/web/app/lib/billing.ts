import { endpoints, type BillingInfo } from '@spawnpoint/contracts';
import { call } from './api.ts';

export const getBillingInfo = () => call(endpoints.billingInfo, {});
export const putBillingInfo = (info: BillingInfo) => call(endpoints.billingInfoUpdate, { body: info });
export const getTransactions = (page = 1) => call(endpoints.transactions, { query: { page } });
/** The page says a missing receipt itself (no toast as well). */
export const getReceipt = (entryId: string) => call(endpoints.receipt, { params: { entryId } }, { background: true });
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
