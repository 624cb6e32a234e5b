// Search attributes every Keyflow workflow sets, so an SRE can find a flow in
// the Temporal UI by client, user or state. Registered by the embedded dev
// server at start and by the worker against any other Temporal server.
// Pure module: imported by workflows.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const SearchAttributes = {
  clientId: defineSearchAttributeKey('KeyflowClientId', SearchAttributeType.KEYWORD),
  userId: defineSearchAttributeKey('KeyflowUserId', SearchAttributeType.KEYWORD),
  state: defineSearchAttributeKey('KeyflowState', SearchAttributeType.KEYWORD),
} as const;

/** `NAME=Type` pairs for `temporal server start-dev --search-attribute`. */
export function devServerSearchAttributeFlags(): string[] {
  return Object.values(SearchAttributes).map((k) => `${k.name}=Keyword`);
}

export interface FlowAttributes {
  clientId?: string;
  userId?: string;
  state: string;
}

/** The search attributes a flow starts with: one place for what every start sets. */
export function flowSearchAttributes({ clientId, userId, state }: FlowAttributes) {
  return [
    ...(clientId !== undefined ? [{ key: SearchAttributes.clientId, value: clientId }] : []),
    ...(userId !== undefined ? [{ key: SearchAttributes.userId, value: userId }] : []),
    { key: SearchAttributes.state, value: state },
  ];
}
