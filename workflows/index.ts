// Every workflow the Keyflow worker runs. Workflow code is deterministic:
// timers, signals, updates and queries only; all I/O is in activities/.
export { deviceAuthorization } from './device-authorization.js';
export { housekeeping } from './housekeeping.js';
export { refreshFamily } from './refresh-family.js';
export { backchannelLogout } from './backchannel-logout.js';
export { sudoWindow } from './sudo-window.js';
export { stepUpChallenge } from './step-up-challenge.js';
export { webhookDelivery } from './webhook-delivery.js';
export { domainVerification } from './domain-verification.js';
export { auditSealer } from './audit-sealer.js';
