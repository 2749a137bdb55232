export type { BusMessage, Subscription, ConsumeOptions, BroadcastOptions, ConsumerLag, EventBus } from "./bus.ts";
export { subjectMatches, producerOf } from "./bus.ts";
export { NatsBus } from "./nats-bus.ts";
export { PgBus } from "./pg-bus.ts";
export type { EventDefinition, RelayHandle, ReceivedEvent } from "./outbox.ts";
export { defineEvent, Outbox, startOutboxRelay, consumeEvents, decodeEnvelope, decodePayload } from "./outbox.ts";
export type { SealedFields } from "./sealed-fields.ts";
export { defineSealedFields, sealFields, openFields } from "./sealed-fields.ts";
export { consumeDeletedUsers, deletedUserOf, type DeletedUser } from "./deleted-user.ts";
