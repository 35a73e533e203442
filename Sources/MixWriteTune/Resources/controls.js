// Controls built from options' schemas (the job file's, /api/options: type, range, default, help): the key panel and
// each layer's key, a layer's at, in, out and opacity, a concat's or still's frame (fit, size, fps, background) and the
// mix (a track's gain, offset and duck depth, the loudness, level match). Each value is kept as a job file writes it
// (`key-color`, `gain` …). A new option of those groups shows here without a line of this file.
import { $, error, valid } from "./api.js";

// `key-color` → `keyColor`: an input's id after its prefix.
export const camel = name => name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());

// The value shown: the one set, else the option's default, else `blank` (a flag's: false; else empty).
function shownValue(value, schema, blank) {
  if (value !== undefined && value !== null) return value;
  if (schema.type === "boolean") return false;
  return schema.default ?? blank ?? "";
}
const asText = v => Array.isArray(v) ? v.join("; ") : String(v);

// Typed text read by the option's schema: { value } (undefined: not set, the option's default or blank), or null when
// it does not fit. A list (garbage) is its rectangles separated by ";"; a colour is RRGGBB. `word`: a word the value
// may be instead (an offset's "auto").
function parse(text, schema, blank, word) {
  const number = s => s.type === "number" || s.type === "integer";
  if (word !== undefined && text === word) return { value: word };
  if (number(schema)) {
    if (text === "" && schema.default === undefined) return { value: undefined };
    const x = Number(text);
    if (text === "" || !Number.isFinite(x) || (schema.type === "integer" && !Number.isInteger(x))) return null;
    if (blank !== undefined && x === blank) return { value: undefined };   // a track's 0 dB, no offset, not ducked
    if (x < (schema.minimum ?? -Infinity) || x > (schema.maximum ?? Infinity)) return null;
    return { value: x };
  }
  if (text === "") return { value: undefined };
  if (schema.oneOf) {
    // A list (its items one by one) or one of several shapes (a rate: "30000/1001" or 25), kept as typed.
    if (schema.oneOf.some(s => s.type === "array")) return { value: text.split(";").map(s => s.trim()) };
    const fits = s => number(s) ? Number.isFinite(Number(text)) : !s.pattern || new RegExp(s.pattern).test(text);
    return schema.oneOf.some(fits) ? { value: text } : null;
  }
  if (schema.pattern && !new RegExp(schema.pattern).test(text)) return null;
  return { value: /^#?[0-9a-f]{6}$/i.test(text) ? text.replace("#", "").toUpperCase() : text };
}

function what(schema) {
  if (schema.type === "integer" || schema.type === "number") {
    const range = schema.minimum !== undefined ? ` from ${schema.minimum} to ${schema.maximum}` : "";
    return (schema.type === "integer" ? "a whole number" : "a number") + range;
  }
  return schema.description || "a value this option takes";
}

// One option's control in `row` (its id `id`): a list for a choice, a tick box for a flag, a slider for a number
// within a range of at most 1 (or when `opts.slider` gives its step), a text box for the rest, checked against the
// schema: a bad value is marked, said beside the box and at the top, and the last good one kept (put back when the box
// is left). `get()` is the value set (undefined: none), `set(v)` sets it (undefined: unset); `changed(name)` follows
// every good change. opts: `inline` (a compact row), `caption` ("" for none: a table's cell), `blank` (what unset
// shows: a track's 0), `live` (a good value taken as it is typed, not when the box is left), `slider` (its step),
// `word` (a word a number's box takes too: an offset's "auto").
export function control(row, name, schema, get, set, id, changed, opts = {}) {
  const label = document.createElement("label");
  label.title = schema.description || "";
  if (opts.inline) label.style.display = "inline-flex";
  const captionText = opts.caption ?? (name === "key-color" ? "colour" : name.replace(/-/g, " "));
  if (captionText !== "") {
    const caption = document.createElement("span");
    caption.textContent = captionText;
    if (opts.inline) caption.style.width = "auto";
    label.append(caption);
  }
  const shown = () => shownValue(get(), schema, opts.blank);
  let input;
  if (schema.enum) {
    input = document.createElement("select");
    for (const v of schema.enum) input.add(new Option(v, v));
    input.value = shown();
    input.addEventListener("change", () => { set(input.value); changed(name); });
    label.append(input);
  } else if (schema.type === "boolean") {
    input = document.createElement("input");
    input.type = "checkbox";
    input.checked = shown() === true;
    input.addEventListener("change", () => { set(input.checked ? true : undefined); changed(name); });
    label.append(input);
  } else if (opts.slider || (schema.type === "number" && !opts.inline && schema.maximum - schema.minimum <= 1)) {
    const step = opts.slider ?? (schema.maximum - schema.minimum) / 200;
    const format = v => opts.slider ? String(v) : Number(v).toFixed(3);
    input = document.createElement("input");
    Object.assign(input, { type: "range", min: schema.minimum, max: schema.maximum, step });
    // A finer value from the command line is shown as it is.
    if (Math.abs(shown() / step - Math.round(shown() / step)) > 1e-9) input.step = "any";
    input.value = shown();
    const out = document.createElement("output");
    if (id) out.id = id + "Out";
    out.textContent = format(shown());
    input.addEventListener("input", () => {
      const v = Number(input.value);
      set(opts.blank !== undefined && v === opts.blank ? undefined : v);
      out.textContent = format(v); changed(name);
    });
    label.append(input, out);
  } else {
    input = document.createElement("input");
    input.size = schema.type === "integer" || schema.type === "number" ? 4 : schema.$ref ? 16 : 8;
    input.value = asText(shown());
    const note = document.createElement("span");
    note.className = "note";
    label.append(input, note);
    const check = () => {
      const r = parse(input.value.trim(), schema, opts.blank, opts.word);
      if (!r) {
        input.classList.add("bad");
        note.textContent = "kept " + asText(shown());
        error(`${name}: "${input.value}" is not ${what(schema)}${opts.word ? ` or ${opts.word}` : ""}; kept ${asText(shown())}`);
        return false;
      }
      input.classList.remove("bad");
      note.textContent = "";
      set(r.value); valid(); changed(name);
      return true;
    };
    if (opts.live) input.addEventListener("input", check);
    input.addEventListener("change", () => {
      if (!check()) { input.value = asText(shown()); input.classList.remove("bad"); note.textContent = ""; }
    });
  }
  if (id) input.id = id;
  row.append(label);
  return input;
}

// Every option of `schema` (name → the job file's schema of it) as a control in `container` over the object `values`,
// ids `prefix` + the option's name in camel case; `changed(name)` after each good change.
export function controls(container, values, schema, prefix, changed, opts = {}) {
  for (const [name, s] of Object.entries(schema))
    control(container, name, s, () => values[name], v => { if (v === undefined) delete values[name]; else values[name] = v; },
            prefix + camel(name), changed, opts);
}

// Shows `values` in the controls again (after the page changed one: a picked colour, a plate, a dragged layer).
export function showValues(values, schema, prefix) {
  for (const [name, s] of Object.entries(schema)) {
    const input = $(prefix + camel(name));
    const v = shownValue(values[name], s);
    if (input.type === "checkbox") input.checked = v === true; else input.value = asText(v);
    const out = $(prefix + camel(name) + "Out");
    if (out) out.textContent = Number(v).toFixed(3);
  }
}
