// Controls built from options' schemas (the job file's, /api/options: type, range, default, help): the FX's key panel
// and each layer's key, and a layer's at, in, out and opacity; every option of the group, its value as a job file
// writes it (`key-color`, `threshold` …). A new option of those groups shows here without a line of this file.
import { $, error, valid } from "./api.js";

// `key-color` → `keyColor`: an input's id after its prefix.
export const camel = name => name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());

// The value shown: the key's own, else the option's default (a flag's: false; none: empty).
function valueOf(key, name, schema) {
  if (name in key) return key[name];
  return schema.type === "boolean" ? false : schema.default ?? "";
}

// Typed text read by the option's schema; undefined when it does not fit. A list (garbage) is its rectangles
// separated by ";"; empty is none.
function parse(text, schema) {
  if (schema.type === "number" || schema.type === "integer") {
    if (text === "" && schema.default === undefined) return "";   // an option without a default: not given (a layer's out)
    const x = Number(text);
    if (text === "" || !Number.isFinite(x) || (schema.type === "integer" && !Number.isInteger(x))) return undefined;
    if (x < (schema.minimum ?? -Infinity) || x > (schema.maximum ?? Infinity)) return undefined;
    return x;
  }
  if (schema.oneOf) return text === "" ? [] : text.split(";").map(s => s.trim());
  if (schema.pattern && text !== "" && !new RegExp(schema.pattern).test(text)) return undefined;
  return /^#?[0-9a-f]{6}$/i.test(text) ? text.replace("#", "").toUpperCase() : text;   // a colour as RRGGBB
}

function what(schema) {
  if (schema.type === "integer" || schema.type === "number") {
    const range = schema.minimum !== undefined ? ` from ${schema.minimum} to ${schema.maximum}` : "";
    return (schema.type === "integer" ? "a whole number" : "a number") + range;
  }
  return schema.description || "a value this option takes";
}

// One option's control in `row`: a slider for a number within a range of at most 1, a tick box for a flag, a list
// for a choice, a text box for the rest (checked against the schema as it is typed: a bad value is said, the last
// good one kept). `changed(name)` follows every good change.
function control(row, key, name, schema, id, changed, inline) {
  const label = document.createElement("label");
  label.title = schema.description || "";
  if (inline) label.style.display = "inline-flex";
  const caption = document.createElement("span");
  caption.textContent = name === "key-color" ? "colour" : name.replace(/-/g, " ");
  if (inline) caption.style.width = "auto";
  label.append(caption);
  const value = valueOf(key, name, schema);
  let input;
  if (schema.enum) {
    input = document.createElement("select");
    for (const v of schema.enum) input.add(new Option(v, v));
    input.value = value;
    input.addEventListener("change", () => { key[name] = input.value; changed(name); });
  } else if (schema.type === "boolean") {
    input = document.createElement("input");
    input.type = "checkbox";
    input.checked = value === true;
    input.addEventListener("change", () => { if (input.checked) key[name] = true; else delete key[name]; changed(name); });
  } else if (schema.type === "number" && !inline && schema.maximum - schema.minimum <= 1) {
    input = document.createElement("input");
    Object.assign(input, { type: "range", min: schema.minimum, max: schema.maximum, step: (schema.maximum - schema.minimum) / 200 });
    input.value = value;
    const out = document.createElement("output");
    out.id = id + "Out";
    out.textContent = Number(value).toFixed(3);
    input.addEventListener("input", () => { key[name] = Number(input.value); out.textContent = key[name].toFixed(3); changed(name); });
    label.append(input, out);
  } else {
    input = document.createElement("input");
    input.size = schema.type === "integer" || schema.type === "number" ? 4 : schema.$ref ? 16 : 8;
    const shown = () => Array.isArray(valueOf(key, name, schema)) ? valueOf(key, name, schema).join("; ") : String(valueOf(key, name, schema));
    input.value = shown();
    input.addEventListener("change", () => {
      const v = parse(input.value.trim(), schema);
      if (v === undefined) { error(`${name}: "${input.value}" is not ${what(schema)}; kept ${shown()}`); input.value = shown(); return; }
      if (v === "" || (Array.isArray(v) && v.length === 0)) delete key[name]; else key[name] = v;
      valid(); changed(name);
    });
  }
  input.id = id;
  if (!label.contains(input)) label.append(input);
  row.append(label);
  return input;
}

// Every option of `schema` (name → the job file's schema of it) as a control in `container`, ids `prefix` + the
// option's name in camel case; `changed(name)` after each good change. `inline`: a compact row (a layer's key).
export function keyControls(container, key, schema, prefix, changed, inline = false) {
  for (const [name, s] of Object.entries(schema)) control(container, key, name, s, prefix + camel(name), changed, inline);
}

// Shows `key`'s values in the controls again (after the page changed one: a picked colour, a plate).
export function showKey(key, schema, prefix) {
  for (const [name, s] of Object.entries(schema)) {
    const input = $(prefix + camel(name));
    const v = valueOf(key, name, s);
    if (input.type === "checkbox") input.checked = v === true; else input.value = Array.isArray(v) ? v.join("; ") : v;
    const out = $(prefix + camel(name) + "Out");
    if (out) out.textContent = Number(v).toFixed(3);
  }
}
