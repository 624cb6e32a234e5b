// Request input at the edge: handlers read `req.body` and `req.query` only
// through a zod schema. Forms (urlencoded, `extended: false`) and the simple
// query parser give strings, or arrays of strings for a repeated field; JSON
// bodies give anything. Schemas here never throw: a handler still refuses a
// missing or malformed field with the error its endpoint has always answered.
import { z } from 'zod';

/** A field the handler checks itself (type and presence), refusing what does not fit with its own error. */
export const raw = z.unknown().optional();

/** A field taken as one string; anything else (absent, repeated, a JSON object) reads as absent. */
export const text = z.string().optional().catch(undefined);

/** A form or query field as sent: one string, or the strings of a repeated field. */
export const formValue = z.union([z.string(), z.array(z.string())]);

/** A page's form field as text: '' when absent, a repeated field's values joined by commas. */
export const formText = formValue
  .optional()
  .catch(undefined)
  .transform((v) => (Array.isArray(v) ? v.join(',') : (v ?? '')));

/** A page's form field that may repeat, as its list of values. */
export const formList = formValue
  .optional()
  .catch(undefined)
  .transform((v) => (v === undefined ? [] : typeof v === 'string' ? [v] : v));

/** Input that is not an object of fields (no body, a JSON array or string) reads as no fields. */
const asObject = (v: unknown): unknown => (typeof v === 'object' && v !== null && !Array.isArray(v) ? v : {});

/** An object of the fields in `shape` (others are dropped). */
export function fieldsOf<S extends z.ZodRawShape>(shape: S) {
  return z.preprocess(asObject, z.object(shape));
}

/** Every field as sent, for endpoints that check each field (e.g. that it appears once). */
export const AllFields = z.preprocess(asObject, z.record(z.string(), z.unknown()));

/** Every field of a urlencoded form: one string each, or the strings of a repeated field. */
export const FormValues = z.preprocess(asObject, z.record(z.string(), formValue));

/** A JSON body that is an object (not an array, a string or nothing). */
export const JsonObject = z.record(z.string(), z.unknown());

/** The fields of a form when each was sent once, or the first repeated one (which the endpoint refuses). */
export function singleValues(form: Record<string, string | string[]>): { fields: Partial<Record<string, string>> } | { repeated: string } {
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(form)) {
    if (typeof v !== 'string') return { repeated: k };
    fields[k] = v;
  }
  return { fields };
}
