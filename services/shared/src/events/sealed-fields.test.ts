import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { EmailRequestedSchema } from "@vestibule/proto/email/v1/email_requested";
import { describe, expect, it } from "vitest";
import { masterKeys, readConfig } from "../config/index.ts";
import { generateMasterKeyEntry, PayloadOpenError, PayloadSealer } from "../secrets/index.ts";
import { defineSealedFields, openFields, sealFields } from "./sealed-fields.ts";

// Any message with a bytes field serves; this one is the first user.
const spec = defineSealedFields(EmailRequestedSchema, { fields: ["subject", "html", "text", "variablesJson"], into: "sealedContent", boundTo: ["projectId", "to"] });
const sealerOf = (entries: string) => new PayloadSealer(readConfig({ k: masterKeys("K", "keys") }, { K: entries }).k);
const k1 = generateMasterKeyEntry("k1");
const TYPE = "x.thing.happened.v1";
const payload = {
  projectId: "p1",
  to: "a@example.com",
  subject: "Your code is ABC123",
  html: "<a href='https://x/?code=secretcode'>go</a>",
  text: "https://x/?code=secretcode",
  template: "magic_link",
  userId: "u1",
  variablesJson: '{"otp":"ABC123"}',
};

describe("sealed event fields", () => {
  it("moves the fields into the sealed bytes, keeps the others readable, and opens back to the original", () => {
    const sealer = sealerOf(k1);
    const sealed = sealFields(sealer, spec, TYPE, payload);
    expect(sealed).toMatchObject({ projectId: "p1", to: "a@example.com", template: "magic_link", userId: "u1", subject: "", html: "", text: "", variablesJson: "" });
    expect(sealed.sealedContent.length).toBeGreaterThan(0);
    // What is stored and published: no trace of the sealed values.
    const wire = Buffer.from(toBinary(EmailRequestedSchema, sealed)).toString("latin1");
    for (const secret of ["secretcode", "ABC123", "Your code"]) expect(wire).not.toContain(secret);

    const received = fromBinary(EmailRequestedSchema, toBinary(EmailRequestedSchema, sealed));
    const opened = openFields(sealerOf(k1), spec, TYPE, received);
    expect(opened).toEqual(create(EmailRequestedSchema, payload));
    expect(opened.sealedContent.length).toBe(0);
  });

  it("passes a payload without sealed bytes through unchanged (producers from before sealing)", () => {
    const plain = create(EmailRequestedSchema, payload);
    expect(openFields(sealerOf(k1), spec, TYPE, plain)).toBe(plain);
  });

  it("binds the event type and the bound fields", () => {
    const sealer = sealerOf(k1);
    const sealed = sealFields(sealer, spec, TYPE, payload);
    const reason = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return (err as PayloadOpenError).reason;
      }
      return "opened";
    };
    expect(reason(() => openFields(sealer, spec, "x.other.happened.v1", sealed))).toBe("not_authentic");
    expect(reason(() => openFields(sealer, spec, TYPE, { ...sealed, to: "attacker@example.com" }))).toBe("not_authentic");
    expect(reason(() => openFields(sealer, spec, TYPE, { ...sealed, projectId: "p2" }))).toBe("not_authentic");
    // Fields that are not bound may change (they are not secret and not part of the sealed bytes).
    expect(reason(() => openFields(sealer, spec, TYPE, { ...sealed, template: "other" }))).toBe("opened");
  });

  it("refuses specs that name missing or unsuitable fields", () => {
    expect(() => defineSealedFields(EmailRequestedSchema, { fields: ["nope" as "html"], into: "sealedContent", boundTo: [] })).toThrow(/no field "nope"/);
    expect(() => defineSealedFields(EmailRequestedSchema, { fields: ["html"], into: "text", boundTo: [] })).toThrow(/must be a bytes field/);
    expect(() => defineSealedFields(EmailRequestedSchema, { fields: ["html"], into: "sealedContent", boundTo: ["html"] })).toThrow(/cannot be sealed/);
  });
});
