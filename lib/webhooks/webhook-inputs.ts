// The webhook API's request bodies, and how their problems read in a 400.
import { z } from 'zod';

const Name = z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');
const Url = z
  .string()
  .trim()
  .max(2000, 'must be at most 2000 characters')
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute https:// URL' });
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: 'must be an https:// URL' });
    else if (url.username || url.password) ctx.addIssue({ code: 'custom', message: 'must not contain credentials (user:password@)' });
  });
const Events = z
  .array(z.string().max(100, 'an event name is at most 100 characters'), 'must be an array of event names')
  .max(100, 'must name at most 100 events');
const Secret = z.string().min(16, 'must be at least 16 characters').max(256, 'must be at most 256 characters');
const IsActive = z.union([z.boolean(), z.literal(0), z.literal(1)], 'must be true, false, 1 or 0');

export const CreateBody = z.strictObject({ name: Name, url: Url, events: Events, secret: Secret.optional() }, 'the body must be a JSON object');
export const PatchBody = z
  .strictObject(
    { name: Name.optional(), url: Url.optional(), events: Events.optional(), is_active: IsActive.optional(), secret: Secret.optional() },
    'the body must be a JSON object',
  )
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'give at least one of name, url, events, is_active, secret');

/** A zod failure as one readable line: `field: problem; …`. */
export function describe(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => {
      if (i.code === 'unrecognized_keys') return `unknown field${i.keys.length > 1 ? 's' : ''}: ${i.keys.join(', ')}`;
      const path = i.path.map(String).join('.');
      return path ? `${path}: ${i.message}` : i.message;
    })
    .join('; ');
}
