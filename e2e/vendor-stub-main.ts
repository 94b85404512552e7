import { startVendorStub } from '../test-support/vendor-stub.ts';

// The software vendors' metadata for the product under test (playwright.config.ts points the node's
// SOFTWARE_MIRROR_* here): this machine reaches no vendor, and Java software is offered only in the
// releases a vendor lists. Downloads are not served: java-server.spec puts a jar in the node's cache.
await startVendorStub(['1.21.4', '1.20.4'], Number(process.env.E2E_VENDOR_PORT));
// The stub's server does not hold the process open by itself (it is shared by test files elsewhere).
setInterval(() => undefined, 1 << 30);
