// `keyflow flows list`: open flows from Temporal's visibility store, filtered
// by the search attributes every workflow sets. The one command that needs
// Temporal and not MongoDB.
import type { Config } from '../lib/config/env.js';
import { flowJson, listFlows } from '../lib/flows/flow-list.js';
import { connectTemporal } from './temporal.js';
import { parseCommand, print, UsageError } from './usage.js';
import { optionsOf } from './commands.js';

export async function flowsCommand(cfg: Config, sub: string | undefined, argv: string[]): Promise<void> {
  if (sub !== 'list') throw new UsageError(`unknown command: flows ${sub ?? ''}`.trim());
  const { values } = parseCommand(argv, optionsOf('flows list'));
  const temporal = await connectTemporal(cfg);
  try {
    const filter = { clientId: values.client as string | undefined, userId: values.user as string | undefined, all: Boolean(values.all) };
    print((await listFlows(temporal.client, filter)).map(flowJson));
  } finally {
    await temporal.close();
  }
}
