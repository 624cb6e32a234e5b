// A user's custom domain as every layer sees it: the host name rules, the TXT
// record that proves control, the DomainVerification flow's input, states and
// message names, and the MongoDB document. Pure module without Node built-ins
// (the workflow imports it): IDNA normalisation is passed in by the caller.
import { z } from 'zod';

/** The label the TXT record is published under: `_keyflow-challenge.<domain>`. */
export const CHALLENGE_LABEL = '_keyflow-challenge';
/** The TXT value's prefix: `keyflow-verification=<token>`. */
export const VERIFICATION_PREFIX = 'keyflow-verification=';

export type DomainVerificationState = 'pending' | 'verified' | 'expired' | 'cancelled';

export interface DomainDoc {
  _id: string; // domain id (also in the workflow id `domain:<id>`)
  userId: string;
  /** ASCII (IDNA) lowercase host name, no trailing dot. */
  domain: string;
  /** The random token of the TXT value: proves control for this user only. */
  token: string;
  verified: boolean;
  verifiedAt: Date | null;
  createdAt: Date;
}

export interface DomainVerificationInput {
  domainId: string;
  userId: string;
  domain: string;
  /** The TXT value expected at `_keyflow-challenge.<domain>` (not a secret: it is published). */
  expected: string;
  /** First wait between checks; doubles up to `maxIntervalMs`. */
  firstIntervalMs: number;
  maxIntervalMs: number;
  /** When the flow gives up (epoch milliseconds): the domain stays unverified. */
  deadline: number;
}

export const domainWorkflowId = (domainId: string) => `domain:${domainId}`;
export const txtRecordName = (domain: string) => `${CHALLENGE_LABEL}.${domain}`;
export const txtRecordValue = (token: string) => `${VERIFICATION_PREFIX}${token}`;

/** The next wait after `current`: doubled, at most `max`. */
export const nextInterval = (current: number, max: number) => Math.min(current * 2, max);

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * A host name as a user typed it, normalised: `toAscii` is IDNA's ToASCII
 * (node:url domainToASCII, '' when invalid). Returns the problem otherwise.
 */
export function normaliseDomain(input: string, toAscii: (s: string) => string): { ok: true; domain: string } | { ok: false; problem: string } {
  const typed = input.trim();
  if (typed.length === 0) return { ok: false, problem: 'must be a host name such as example.com' };
  if (typed.length > 253 * 4) return { ok: false, problem: 'must be at most 253 characters' };
  if (typed.endsWith('.')) return { ok: false, problem: 'must not end with a dot' };
  if (typed.includes('[') || typed.includes(':')) return { ok: false, problem: 'must be a host name, not an IP address' };
  const ascii = toAscii(typed).toLowerCase();
  if (ascii === '') return { ok: false, problem: 'is not a valid host name' };
  if (IPV4.test(ascii)) return { ok: false, problem: 'must be a host name, not an IP address' };
  if (ascii.length > 253) return { ok: false, problem: 'must be at most 253 characters' };
  const labels = ascii.split('.');
  if (labels.length < 2) return { ok: false, problem: 'must have at least two labels, such as example.com' };
  if (!labels.every((l) => LABEL.test(l))) return { ok: false, problem: 'labels must be letters, digits and inner hyphens, 1 to 63 characters each' };
  if (/^\d+$/.test(labels[labels.length - 1]!)) return { ok: false, problem: 'must be a host name, not an IP address' };
  return { ok: true, domain: ascii };
}

/** The add request's body: `{domain}`. */
export const AddDomainInput = z.object({ domain: z.string({ error: 'must be a string' }).max(1024, 'is too long') });

/** A domain as the API shows it. */
export function domainJson(d: DomainDoc) {
  return {
    id: d._id,
    domain: d.domain,
    verified: d.verified,
    verified_at: d.verifiedAt ? d.verifiedAt.toISOString() : null,
    txt_record: { name: txtRecordName(d.domain), value: txtRecordValue(d.token) },
    created_at: d.createdAt.toISOString(),
  };
}

/** The data of `domain.added`, `domain.verified` and `domain.deleted`. */
export const domainEventData = (d: Pick<DomainDoc, '_id' | 'domain'>) => ({ domain_id: d._id, domain: d.domain });
