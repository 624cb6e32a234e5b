// Reading Keyflow's answers to the client in either response mode: a redirect
// (query) or a form_post page, whose form is read the way a browser would
// submit it (its action, its hidden fields with HTML entities decoded).

export interface FormPost {
  action: string;
  fields: Record<string, string>;
}

const decode = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** The one form of a form_post page; throws when the page has none or more than one. */
export function readFormPost(page: string): FormPost {
  const forms = [...page.matchAll(/<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/g)];
  if (forms.length !== 1) throw new Error(`expected one form_post form, found ${forms.length}: ${page.slice(0, 300)}`);
  const [, action, inner] = forms[0]!;
  const fields: Record<string, string> = {};
  for (const m of inner!.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) fields[decode(m[1]!)] = decode(m[2]!);
  return { action: decode(action!), fields };
}

/** The form_post page of a response (asserting its status and type). */
export async function formPostOf(res: Response): Promise<FormPost> {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  return readFormPost(await res.text());
}
