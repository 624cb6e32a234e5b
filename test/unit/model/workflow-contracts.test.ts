// What each workflow shares with the api and its activities through
// lib/model: its workflow id, derived from what the api knows, and the names
// of its signals, updates and queries. Running workflows and recorded
// histories carry these names, so they never change: a rename here would
// strand every flow started before it.
import { logoutWorkflowId } from '../../../lib/model/backchannel-logout.js';
import { deviceWorkflowId } from '../../../lib/model/device-authorization.js';
import { familyWorkflowId } from '../../../lib/model/refresh-family.js';
import * as messages from '../../../lib/temporal/flow-messages.js';
import { stepUpWorkflowId } from '../../../lib/model/step-up-challenge.js';
import { webhookDeliveryWorkflowId } from '../../../lib/model/webhook-delivery.js';
import { auditSealerWorkflowId } from '../../../lib/model/audit-sealer.js';

describe('workflow ids', () => {
  it('name each flow after what it is one of', () => {
    expect(familyWorkflowId('g1')).toBe('grant:g1');
    expect(stepUpWorkflowId('c1')).toBe('challenge:c1');
    expect(logoutWorkflowId('sid-1')).toBe('logout:sid-1');
    expect(webhookDeliveryWorkflowId('d1')).toBe('webhook-delivery:d1');
    expect(auditSealerWorkflowId('keyflow')).toBe('audit-sealer-keyflow');
  });

  it('derive a device flow’s id from the device code’s hash, cut to 32 characters, never from the code', () => {
    const hash = 'a'.repeat(32) + 'b'.repeat(32);
    expect(deviceWorkflowId(hash)).toBe(`device:${'a'.repeat(32)}`);
    expect(deviceWorkflowId('short')).toBe('device:short');
  });
});

describe('message names', () => {
  it('stay as running flows and recorded histories know them', () => {
    expect(Object.fromEntries(Object.entries(messages).map(([key, definition]) => [key, definition.name]))).toEqual({
      revokeFamilyUpdate: 'revoke',
      revokeFamilySignal: 'revokeGrant',
      familyStateQuery: 'state',
      approveDeviceSignal: 'approve',
      denyDeviceSignal: 'deny',
      redeemDeviceUpdate: 'redeem',
      deviceStateQuery: 'state',
      confirmStepUpUpdate: 'confirm',
      denyStepUpUpdate: 'deny',
      failStepUpUpdate: 'fail',
      redeemStepUpUpdate: 'redeem',
      stepUpStateQuery: 'state',
      revokeSudoUpdate: 'revoke',
      revokeSudoSignal: 'revokeWindow',
      sudoActiveQuery: 'active',
      verifyDomainNowSignal: 'verifyNow',
      cancelDomainSignal: 'cancel',
      domainStateQuery: 'state',
      auditHeadQuery: 'head',
      auditSettingsSignal: 'settings',
    });
  });
});
