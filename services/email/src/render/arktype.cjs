// "arktype" for e-mail templates: the part of arktype's `type()` that templates written for the published product use
// to declare their variables (`export const variablesSchema = type({ name: "string", "count?": "number" })`, and
// `typeof variablesSchema.infer` in types, which compile away). Loaded into every render context, like
// components.cjs: small, dependency-free, no I/O.
//
// A schema is a function: called with the variables it returns them when they match, otherwise an ArkErrors object
// with a `summary`. Understood definitions: an object of keys ("key" required, "key?" optional) whose values are
// definitions; "string", "number", "boolean", "null", "undefined", "unknown", "any", "object", "Date"; "T[]"; unions
// "A | B"; string and number literals ('"a"', "'a'", "1"); nested objects. Anything else is accepted as is (never a
// false rejection of a template that the real arktype would accept).
"use strict";

function ArkErrors(problems) {
  this.problems = problems;
  this.summary = problems.join("\n");
  this.message = this.summary;
}
ArkErrors.prototype.throw = function () {
  throw new Error(this.summary);
};

function check(def, value, path, problems) {
  if (typeof def === "function" && def.__vestibuleArkType) {
    check(def.definition, value, path, problems);
    return;
  }
  if (def && typeof def === "object" && !Array.isArray(def)) {
    if (!value || typeof value !== "object" || Array.isArray(value)) {
      problems.push((path || "value") + " must be an object");
      return;
    }
    for (const rawKey of Object.keys(def)) {
      const optional = rawKey.endsWith("?");
      const key = optional ? rawKey.slice(0, -1) : rawKey;
      const child = path ? path + "." + key : key;
      if (value[key] === undefined) {
        if (!optional) problems.push(child + " must be defined");
        continue;
      }
      check(def[rawKey], value[key], child, problems);
    }
    return;
  }
  if (typeof def !== "string") return;
  const text = def.trim();
  if (text.includes("|")) {
    const branches = text.split("|");
    for (const branch of branches) {
      const p = [];
      check(branch, value, path, p);
      if (p.length === 0) return;
    }
    problems.push((path || "value") + " must be " + branches.map((b) => b.trim()).join(" or "));
    return;
  }
  if (text.endsWith("[]")) {
    if (!Array.isArray(value)) {
      problems.push((path || "value") + " must be an array");
      return;
    }
    value.forEach((item, i) => check(text.slice(0, -2), item, (path || "value") + "[" + i + "]", problems));
    return;
  }
  const fail = (what) => problems.push((path || "value") + " must be " + what);
  switch (text) {
    case "string":
      if (typeof value !== "string") fail("a string");
      return;
    case "number":
      if (typeof value !== "number" || Number.isNaN(value)) fail("a number");
      return;
    case "boolean":
      if (typeof value !== "boolean") fail("a boolean");
      return;
    case "null":
      if (value !== null) fail("null");
      return;
    case "undefined":
      if (value !== undefined) fail("undefined");
      return;
    case "object":
      if (!value || typeof value !== "object") fail("an object");
      return;
    default:
      if (/^(["']).*\1$/.test(text)) {
        if (value !== text.slice(1, -1)) fail(text);
      } else if (/^-?\d+(\.\d+)?$/.test(text)) {
        if (value !== Number(text)) fail(text);
      }
  }
}

function type(definition) {
  const schema = function (data) {
    const problems = [];
    check(definition, data, "", problems);
    return problems.length === 0 ? data : new ArkErrors(problems);
  };
  schema.__vestibuleArkType = true;
  schema.definition = definition;
  schema.infer = undefined;
  schema.assert = function (data) {
    const out = schema(data);
    if (out instanceof ArkErrors) throw new Error(out.summary);
    return out;
  };
  schema.allows = function (data) {
    return !(schema(data) instanceof ArkErrors);
  };
  return schema;
}

exports.type = type;
exports.ArkErrors = ArkErrors;
