// The api's input schemas: they never throw, and what is not the expected
// shape reads as absent, so each endpoint refuses it with its own error.
import { AllFields, fieldsOf, formList, formText, FormValues, JsonObject, raw, singleValues, text } from '../../api/http/input.js';

describe('request input', () => {
  it('reads a body that is not an object of fields as no fields', () => {
    const schema = fieldsOf({ code: raw, name: text });
    for (const body of [undefined, null, 'code=1', [{ code: '1' }], 42]) expect(schema.parse(body)).toEqual({});
    expect(AllFields.parse(['a'])).toEqual({});
  });

  it('keeps a field the handler checks itself as sent, and drops fields it does not name', () => {
    expect(fieldsOf({ code: raw }).parse({ code: ['1', '2'], other: 'x' })).toEqual({ code: ['1', '2'] });
  });

  it('reads a text field that is not one string as absent', () => {
    const schema = fieldsOf({ name: text });
    expect(schema.parse({ name: 'Ada' }).name).toBe('Ada');
    expect(schema.parse({ name: ['Ada', 'Bob'] }).name).toBeUndefined();
    expect(schema.parse({ name: { first: 'Ada' } }).name).toBeUndefined();
  });

  it("reads a page's form fields as text and lists", () => {
    const schema = fieldsOf({ name: formText, scope: formList });
    expect(schema.parse({})).toEqual({ name: '', scope: [] });
    expect(schema.parse({ name: ['a', 'b'], scope: 'openid' })).toEqual({ name: 'a,b', scope: ['openid'] });
    expect(schema.parse({ name: 7, scope: ['a', 'b'] })).toEqual({ name: '', scope: ['a', 'b'] });
  });

  it('takes form values as strings or repeated strings, and names the first repeated field', () => {
    const form = FormValues.parse({ grant_type: 'refresh_token', scope: ['a', 'b'] });
    expect(singleValues(form)).toEqual({ repeated: 'scope' });
    expect(singleValues({ grant_type: 'x' })).toEqual({ fields: { grant_type: 'x' } });
    expect(FormValues.safeParse({ a: 1 }).success).toBe(false);
  });

  it('tells a JSON object from other JSON', () => {
    expect(JsonObject.safeParse({ a: 1 }).success).toBe(true);
    for (const body of [[1], 'x', null]) expect(JsonObject.safeParse(body).success).toBe(false);
  });
});
