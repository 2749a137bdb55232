import { clone, create, fromBinary, ScalarType, toBinary, type DescField, type DescMessage, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import { reflect } from "@bufbuild/protobuf/reflect";
import type { PayloadSealer } from "../secrets/index.ts";

/**
 * Which fields of an event payload travel sealed (PayloadSealer), so that the producer's outbox and the bus's log hold
 * them only encrypted, while the other fields stay readable for routing and operations:
 *  - `fields`: the fields to seal; they are empty in the payload as stored and published;
 *  - `into`: a `bytes` field of the same message that carries them sealed: the binary encoding of a message of the
 *    same type that sets only those fields;
 *  - `boundTo`: string fields that stay in clear and are bound to the sealed bytes (with the event type) as additional
 *    data, so that sealed bytes copied into another event, or an event whose bound fields were changed, do not open.
 * Producer and consumer must define the same fields, `into` and `boundTo`; adding `into` to an existing message is a
 * backward-compatible protobuf change, and a consumer accepts a payload whose `into` is empty as it is (its fields in
 * clear, e.g. written by a producer from before sealing).
 */
export interface SealedFields<Desc extends DescMessage> {
  readonly schema: Desc;
  readonly fields: readonly DescField[];
  readonly into: DescField;
  readonly boundTo: readonly DescField[];
}

type FieldName<Desc extends DescMessage> = keyof MessageShape<Desc> & string;

function fieldOf(schema: DescMessage, name: string): DescField {
  const field = schema.fields.find((f) => f.localName === name);
  if (!field) throw new Error(`${schema.typeName} has no field "${name}"`);
  return field;
}

export function defineSealedFields<Desc extends DescMessage>(
  schema: Desc,
  spec: { fields: readonly FieldName<Desc>[]; into: FieldName<Desc>; boundTo: readonly FieldName<Desc>[] },
): SealedFields<Desc> {
  const into = fieldOf(schema, spec.into);
  if (into.fieldKind !== "scalar" || into.scalar !== ScalarType.BYTES) throw new Error(`${schema.typeName}.${spec.into} must be a bytes field`);
  const boundTo: DescField[] = spec.boundTo.map((name) => {
    const field = fieldOf(schema, name);
    if (field.fieldKind !== "scalar" || field.scalar !== ScalarType.STRING) throw new Error(`${schema.typeName}.${name} must be a string field to be bound`);
    return field;
  });
  const fields = spec.fields.map((name) => fieldOf(schema, name));
  for (const f of fields) {
    if (f === into || boundTo.includes(f)) throw new Error(`${schema.typeName}.${f.localName} cannot be sealed and also be "into" or bound`);
  }
  return { schema, fields, into, boundTo };
}

function context<Desc extends DescMessage>(spec: SealedFields<Desc>, eventType: string, message: MessageShape<Desc>): string {
  const r = reflect(spec.schema, message);
  return [eventType, ...spec.boundTo.map((f) => String(r.get(f)))].join("\n");
}

/** The payload to enqueue: `fields` moved, sealed, into `into`. */
export function sealFields<Desc extends DescMessage>(
  sealer: PayloadSealer,
  spec: SealedFields<Desc>,
  eventType: string,
  payload: MessageInitShape<Desc>,
): MessageShape<Desc> {
  const outer = create(spec.schema, payload);
  const inner = create(spec.schema);
  const from = reflect(spec.schema, outer);
  const to = reflect(spec.schema, inner);
  for (const f of spec.fields) {
    if (from.isSet(f)) to.set(f, from.get(f));
    from.clear(f);
  }
  from.set(spec.into, sealer.seal(toBinary(spec.schema, inner), context(spec, eventType, outer)));
  return outer;
}

/**
 * The payload as the producer meant it: the sealed fields opened and put back, `into` cleared. A payload without
 * sealed bytes is returned as it is. Throws PayloadOpenError when the bytes do not open (see its `reason`).
 */
export function openFields<Desc extends DescMessage>(
  sealer: PayloadSealer,
  spec: SealedFields<Desc>,
  eventType: string,
  payload: MessageShape<Desc>,
): MessageShape<Desc> {
  const sealed = reflect(spec.schema, payload).get(spec.into) as Uint8Array;
  if (sealed.length === 0) return payload;
  const inner = fromBinary(spec.schema, sealer.open(sealed, context(spec, eventType, payload)));
  const out = clone(spec.schema, payload);
  const from = reflect(spec.schema, inner);
  const to = reflect(spec.schema, out);
  for (const f of spec.fields) {
    if (from.isSet(f)) to.set(f, from.get(f));
  }
  to.clear(spec.into);
  return out;
}
