// The tuning page: its controls, drawn from what /api/info says of the job, and what a change asks of the server.
import { $, api, getJSON, post, status, error, valid } from "./api.js";
import { camel, control, controls, showValues } from "./controls.js";

let info, settings, picking = false;
// Whether the job's kind shows this part of the page (`info.parts`, the kind's composition says which).
const has = part => info.parts.includes(part);
// The options as the job file's schema describes them (/api/options): the key's, a layer's and the job's kind's (its
// frame and mix): what the controls are built from.
let keySchema = {}, layerSchema = {}, jobSchema = {};
// How long each slider move took to show its picture (input event to the image's load), for the benchmark.
window.mwTimings = [];

// The picture: one request at a time; a change while one is on its way is sent when it arrives (the newest).
let inFlight = false, pending = null;
// Whether a picture is on its way (for tests: the one shown is the last asked for only when not).
window.mwBusy = () => inFlight || pending !== null || !$("picture").complete;
// What of the settings makes the picture, besides the time: a concat's clips and frame, a still's frame, a blend's key.
function frameParams() {
  const p = {};
  if (has("clips")) {
    p.clips = settings.clips.join(","); p.transitions = settings.transitions.join(",");
    p.retimes = JSON.stringify(settings.retimes);
  }
  if (has("fps")) p.fps = settings.fps;
  if (has("frame")) { p.fit = settings.fit; p.size = settings.size; }
  if (has("background")) p.background = settings.background;
  if (has("captions")) { p.captions = JSON.stringify(settings.captions); p["burn-captions"] = settings["burn-captions"] ? "1" : "0"; }
  return p;
}
function pictureParams(view) {
  const p = { t: $("t").value, ...frameParams() };
  if (has("key")) Object.assign(p, { view, key: JSON.stringify(settings.key), layers: JSON.stringify(settings.layers),
                                                layerKeys: JSON.stringify(settings.layerKeys) });
  return p;
}
function refresh(started = performance.now()) {
  if (!info.width) return;   // a sound-only remix: no picture, the mix alone
  if (inFlight) { pending = started; return; }
  inFlight = true;
  const side = $("view").value === "side";
  const img = $("picture");
  img.onload = () => {
    window.mwTimings.push(performance.now() - started);
    inFlight = false;
    img.dataset.loaded = String(Number(img.dataset.loaded || 0) + 1);
    valid();
    if (pending !== null) { const p = pending; pending = null; refresh(p); }
  };
  img.onerror = () => { inFlight = false; error("the picture could not be made"); };
  img.src = api("/api/picture", pictureParams(side ? "composite" : $("view").value));
  $("second").hidden = !side;
  if (side) $("second").src = api("/api/picture", pictureParams("matte"));
  applyZoom();
}
// "fit": the whole picture (two side by side) in the stage, however it is shaped; a zoom: that many pixels a
// pixel, the stage scrolling. The audition under the picture is as wide as it.
function applyZoom() {
  if (!info.width) return;
  const z = $("zoom").value, n = $("view").value === "side" ? 2 : 1, stage = $("stage");
  const scale = z === "fit" ? Math.min((stage.clientWidth - 4 * (n - 1)) / (info.width * n), stage.clientHeight / info.height)
                            : Number(z);
  const w = Math.max(1, Math.floor(info.width * scale)), h = Math.max(1, Math.floor(info.height * scale));
  for (const img of [$("picture"), $("second")]) { img.style.width = w + "px"; img.style.height = h + "px"; }
  $("audition").style.width = Math.min(w, stage.clientWidth) + "px";
  if (has("layers")) { $("boxes").style.width = w + "px"; $("boxes").style.height = h + "px"; placeBoxes(); }
}

// A blend's layers: where each goes (a box on the picture, its numbers in the panel) and when (a band under the time).
function layerEnd(i) {
  const l = settings.layers[i], own = info.layers[i].fxDuration;
  return l.at + Math.max(0, Math.min(l.out ?? own, own) - (l.in || 0)) / (l.speed || 1);
}
function drawSpans() {
  const bar = $("spans");
  bar.textContent = "";
  settings.layers.forEach((l, i) => {
    const d = document.createElement("div");
    d.style.left = (100 * l.at / info.duration) + "%";
    d.style.width = (100 * Math.max(0, Math.min(layerEnd(i), info.duration) - l.at) / info.duration) + "%";
    d.title = info.layers[i].name + ": " + l.at.toFixed(2) + " to " + layerEnd(i).toFixed(2) + " s";
    bar.append(d);
  });
}
function placeBoxes() {
  const scale = $("picture").clientWidth / info.width;
  document.querySelectorAll(".layerbox").forEach((box, i) => {
    const r = settings.layers[i].place || [0, 0, info.width, info.height];
    box.classList.toggle("whole", !settings.layers[i].place);
    Object.assign(box.style, { left: r[0] * scale + "px", top: r[1] * scale + "px", width: r[2] * scale + "px", height: r[3] * scale + "px" });
  });
}
// A layer's rectangle (`place`) as four boxes; its other options (at, in, out, opacity) are made from their
// declarations as the key's are (layerSchema).
const layerFields = ["x", "y", "w", "h"];
function showLayer(i) {
  const l = settings.layers[i], r = l.place || ["", "", "", ""];
  for (const f of layerFields) $("layer" + i + f).value = r["xywh".indexOf(f)];
  showValues(l, layerSchema, "layer" + i);
}
function layerChanged(i) { showLayer(i); placeBoxes(); drawSpans(); refresh(); settingsChanged(); }
function drawLayers() {
  $("layers").textContent = ""; $("boxes").textContent = "";
  info.layers.forEach((layer, i) => {
    const row = document.createElement("div");
    row.className = "layer";
    row.innerHTML = `<div class="name"></div><div class="file"></div>` + layerFields.map(f =>
      `<label style="display:inline-flex"><span style="width:auto">${f}</span><input id="layer${i}${f}" size="5"></label>`).join(" ");
    row.querySelector(".name").textContent = layer.name;
    row.querySelector(".file").textContent = layer.file;
    const timing = document.createElement("span");
    row.querySelector(".file").after(timing);
    controls(timing, settings.layers[i], layerSchema, "layer" + i, () => layerChanged(i), { inline: true });
    $("layers").append(row);
    if (i > 0) keyFields(row, i - 1);
    for (const f of layerFields) $("layer" + i + f).addEventListener("change", () => {
      const l = settings.layers[i], v = $("layer" + i + f).value.trim(), x = Number(v);
      const r = l.place ? [...l.place] : [0, 0, info.width, info.height];
      if (v === "" && f === "w") { l.place = null; return layerChanged(i); }
      if (!Number.isFinite(x)) { error(f + " must be a number"); return showLayer(i); }
      r["xywh".indexOf(f)] = Math.round(x); l.place = r;
      layerChanged(i);
    });
    const box = document.createElement("div");
    box.className = "layerbox"; box.dataset.layer = String(i); box.textContent = layer.name;
    const handle = document.createElement("div");
    handle.className = "handle";
    box.append(handle);
    box.addEventListener("pointerdown", event => dragLayer(event, i, event.target === handle));
    $("boxes").append(box);
    showLayer(i);
  });
  placeBoxes(); drawSpans();
}
// A layer's own key (the FX's is the Key panel's): every option a key has, as the Key panel's, in a row.
function keyFields(row, k) {
  const keys = document.createElement("div");
  row.append(keys);
  const key = settings.layerKeys[k];
  controls(keys, key, keySchema, "layerKey" + k, async name => {
    if (name === "keyer") await readScreen(key, k + 1, () => showValues(key, keySchema, "layerKey" + k));
    refresh(); settingsChanged();
  }, { inline: true });
}
// The fine keyer chosen with pure green reads the layer's screen colour from its clip's border (`layer` 0: the FX's),
// as the command line does given no colour (pure green leaves a real screen showing through); a border that is no
// screen is said, pure green kept. `shown()` shows the colour read.
async function readScreen(key, layer, shown) {
  if (key.keyer !== "fine" || !/^#?00FF00$/i.test(key["key-color"] ?? "00FF00")) return;
  try {
    key["key-color"] = (await getJSON("/api/screen", { ...pictureParams("composite"), layer }))["key-color"];
    shown();
    status(info.layers[layer].name + ": key colour " + key["key-color"] + " read from its border", "ok");
  } catch (e) { error(e.message); }
}
// Dragging a box moves its layer (its corner: resizes it), in the picture's pixels; the picture follows on release.
function dragLayer(event, i, resizing) {
  event.preventDefault();
  const box = event.currentTarget, scale = $("picture").clientWidth / info.width;
  const start = [event.clientX, event.clientY], r0 = settings.layers[i].place || [0, 0, info.width, info.height];
  box.setPointerCapture(event.pointerId);
  const move = e => {
    const dx = Math.round((e.clientX - start[0]) / scale), dy = Math.round((e.clientY - start[1]) / scale);
    settings.layers[i].place = resizing ? [r0[0], r0[1], Math.max(2, r0[2] + dx), Math.max(2, r0[3] + dy)]
                                        : [r0[0] + dx, r0[1] + dy, r0[2], r0[3]];
    showLayer(i); placeBoxes();
  };
  const up = () => {
    box.removeEventListener("pointermove", move); box.removeEventListener("pointerup", up);
    layerChanged(i);
  };
  box.addEventListener("pointermove", move);
  box.addEventListener("pointerup", up);
}

// A change of the frame or of the clips changes the output's size, length and timeline: asked again, then drawn.
let layoutAsked = 0;
async function relayout() {
  const asked = ++layoutAsked;
  try {
    const now = await getJSON("/api/info", frameParams());
    if (asked !== layoutAsked) return true;
    Object.assign(info, { width: now.width, height: now.height, duration: now.duration, frameRate: now.frameRate,
                          pieces: now.pieces, events: now.events, clips: now.clips });
    const t = $("t");
    t.max = Math.max(0, info.duration - 1 / info.frameRate);
    t.step = 1 / info.frameRate;
    if (Number(t.value) > Number(t.max)) t.value = t.max;
    $("tOut").textContent = Number(t.value).toFixed(2) + " s";
    drawTimeline(); drawClips(); refresh(); settingsChanged();
    return true;
  } catch (e) { error(e.message); return false; }
}

// A concat's (or a render's bottom track's) timeline under the time slider: each clip where it lands, each event as a tick.
function drawTimeline() {
  const bar = $("timeline");
  if (!has("timeline")) return;
  bar.textContent = "";
  const at = x => (100 * x / info.duration) + "%";
  for (const piece of info.pieces) {
    const d = document.createElement("div");
    // Its label ends where the next clip begins (a transition overlaps them): the names never run into each other.
    const next = info.pieces[info.pieces.indexOf(piece) + 1];
    d.style.left = at(piece.start); d.style.width = at(next ? Math.min(piece.duration, next.start - piece.start) : piece.duration);
    d.textContent = piece.file.split("/").pop(); d.title = d.textContent + " from " + piece.start.toFixed(2) + " s";
    bar.append(d);
  }
  // Where two clips overlap: a transition.
  info.pieces.forEach((piece, i) => {
    const next = info.pieces[i + 1], end = piece.start + piece.duration;
    if (!next || next.start >= end - 1e-9) return;
    const d = document.createElement("div");
    d.className = "crossing"; d.style.left = at(next.start); d.style.width = at(end - next.start);
    d.title = ((settings.transitions || [])[i] || "transition") + " from " + next.start.toFixed(2) + " s to " + end.toFixed(2) + " s";
    bar.append(d);
  });
  for (const e of info.events) {
    const d = document.createElement("div");
    d.className = "event"; d.style.left = at(e.time); d.title = e.name + " at " + e.time.toFixed(2) + " s";
    bar.append(d);
  }
}

// A concat's clips: in the movie's order (those removed after them), each with its own picture at its own time
// (as the output shows it), moved up or down, removed or put back.
const clipTimes = {};
function drawClips() {
  if (!has("clips")) return;
  const list = $("clips");
  list.textContent = "";
  const removed = info.clips.map(c => c.index).filter(i => !settings.clips.includes(i));
  for (const index of [...settings.clips, ...removed]) {
    const clip = info.clips[index], kept = settings.clips.includes(index), place = settings.clips.indexOf(index);
    const box = document.createElement("div");
    box.className = "clip" + (kept ? "" : " removed");
    box.dataset.clip = index;
    box.innerHTML = `<div class="name"></div><img alt=""><label><span>time</span><input type="range" min="0" step="any">
      <output></output></label><label><span>own time</span><input class="retime" size="22"
      placeholder="as it is" title="speed=0.5, reverse, freeze=1, pitch=follow, a ramp speed=1@0,0.5@2; colons between"></label>
      <button data-move="-1">up</button><button data-move="1">down</button>
      <button data-remove>${kept ? "remove" : "put back"}</button>`;
    box.querySelector(".name").textContent = (kept ? (place + 1) + ". " : "") + clip.name;
    if (kept && place > 0) list.append(boundary(place));
    const img = box.querySelector("img"), scrub = box.querySelector("input"), out = box.querySelector("output");
    scrub.max = Math.max(0, clip.duration - 1 / info.frameRate);
    scrub.value = Math.min(clipTimes[index] ?? clip.duration / 2, Number(scrub.max));
    const show = () => {
      out.textContent = Number(scrub.value).toFixed(2) + " s";
      clipTimes[index] = Number(scrub.value);
      if (kept) img.src = api("/api/picture", { ...frameParams(), clip: index, t: scrub.value });
    };
    img.hidden = !kept; scrub.disabled = !kept;
    show();
    scrub.addEventListener("input", show);
    for (const b of box.querySelectorAll("[data-move]")) {
      b.disabled = !kept || place + Number(b.dataset.move) < 0 || place + Number(b.dataset.move) >= settings.clips.length;
      b.addEventListener("click", () => {
        const to = place + Number(b.dataset.move);
        [settings.clips[place], settings.clips[to]] = [settings.clips[to], settings.clips[place]];
        relayout();
      });
    }
    // Its own time, as its word on the command line writes it after the file: one the job's reader refuses is said,
    // and the last good one put back.
    const retime = box.querySelector(".retime");
    retime.value = settings.retimes[index] || "";
    retime.disabled = !kept;
    retime.addEventListener("change", async () => {
      const before = settings.retimes[index];
      settings.retimes[index] = retime.value.trim();
      if (!(await relayout())) { settings.retimes[index] = before; retime.value = before || ""; }
    });
    const remove = box.querySelector("[data-remove]");
    remove.disabled = kept && settings.clips.length === 1;
    remove.addEventListener("click", () => {
      settings.clips = kept ? settings.clips.filter(i => i !== index) : [...settings.clips, index];
      fitTransitions();
      relayout();
    });
    list.append(box);
  }
}

// The transition between the clips at places k − 1 and k of the movie: its kind and length, as --transition-at k=KIND:S.
// The server reads it as a job file's `transition-at` (the kinds are its list): one it refuses is said, and the last
// good one put back.
function boundary(k) {
  const row = document.createElement("div");
  row.className = "boundary"; row.dataset.boundary = k;
  row.innerHTML = `<label>${k} → ${k + 1}: <select></select></label> <label><input size="4"> s</label>`;
  const kind = row.querySelector("select"), length = row.querySelector("input");
  for (const name of info.transitionKinds) kind.append(new Option(name, name));
  const show = text => {
    const [given, seconds] = text.split(":");
    kind.value = given; length.value = seconds ?? "1"; length.disabled = given === "cut";
  };
  show(settings.transitions[k - 1] || "cut");
  const changed = async () => {
    const before = settings.transitions[k - 1];
    settings.transitions[k - 1] = kind.value === "cut" ? "cut" : kind.value + ":" + length.value.trim();
    length.disabled = kind.value === "cut";
    if (!(await relayout())) { settings.transitions[k - 1] = before; show(before || "cut"); }
  };
  kind.addEventListener("change", changed);
  length.addEventListener("change", changed);
  return row;
}

// One transition a boundary of the movie's clips (one added as a cut, or the last dropped, when a clip comes or goes).
function fitTransitions() {
  const n = Math.max(0, settings.clips.length - 1);
  while (settings.transitions.length < n) settings.transitions.push("cut");
  settings.transitions.length = n;
}

// A concat's or still's frame, made from its kind's options (fit and size; fps and background where the kind shows
// them), each checked as it is typed; a change lays the movie out again. An empty size or rate is the inputs' own.
const framePlaceholders = { size: "as the input", fps: "the clips' highest" };
function bindFrame() {
  if (!has("frame")) return;
  for (const name of ["fit", "size", ...["fps", "background"].filter(has)]) {
    control($("frameControls"), name, jobSchema[name], () => settings[name], v => { settings[name] = v ?? ""; }, camel(name),
            () => relayout(), { live: true });
    $(camel(name)).placeholder = framePlaceholders[name] || "";
  }
}

// The command and job entry follow every change.
let commandTimer = null;
function settingsChanged() {
  clearTimeout(commandTimer);
  commandTimer = setTimeout(async () => {
    const r = await post("/api/command", {}, settings);
    if (r.ok) { $("command").value = r.body.command; $("job").value = r.body.job; valid(); } else error(r.body.error);
  }, 150);
}

function bindKey() {
  const key = settings.key;
  // A plate is read by the server before the picture is asked for with it: one it refuses (no screen, unreadable) is
  // said, and the last good one kept.
  let plate = key["clean-plate"];
  const plateChanged = async () => {
    const r = await post("/api/command", {}, settings);
    if (!r.ok) {
      if (plate) key["clean-plate"] = plate; else delete key["clean-plate"];
      showValues(key, keySchema, "");
      return error(r.body.error);
    }
    plate = key["clean-plate"];
    $("command").value = r.body.command; $("job").value = r.body.job; valid(); refresh();
  };
  const showSwatch = () => { $("swatch").style.background = "#" + key["key-color"]; };
  controls($("keyControls"), key, keySchema, "", async name => {
    if (name === "clean-plate") return plateChanged();
    if (name === "key-color") showSwatch();
    if (name === "keyer") await readScreen(key, 0, () => { showValues(key, keySchema, ""); showSwatch(); });
    refresh(); settingsChanged();
  });
  $("keyColor").after($("swatch"), $("pickButton"));
  $("cleanPlate").placeholder = "none: learnt from fx";
  $("cleanPlate").after($("plateButton"));
  showSwatch();
  $("plateButton").addEventListener("click", async () => {
    const r = await post("/api/plate", { t: $("t").value }, settings);
    if (!r.ok) return error(r.body.error);
    plate = key["clean-plate"] = r.body["clean-plate"]; showValues(key, keySchema, "");
    status("fx's picture saved as the clean plate: " + plate, "ok"); refresh(); settingsChanged();
  });
  $("pickButton").addEventListener("click", () => {
    picking = true; $("boxes").hidden = true; $("view").value = "fx"; refresh(); status("click on the screen colour in the picture");
  });
  $("picture").addEventListener("click", async event => {
    if (!picking) return;
    picking = false;
    $("boxes").hidden = false;
    const img = $("picture"), box = img.getBoundingClientRect();
    const x = Math.floor((event.clientX - box.left) * info.width / box.width);
    const y = Math.floor((event.clientY - box.top) * info.height / box.height);
    try {
      settings.key["key-color"] = (await getJSON("/api/pick", { t: $("t").value, x, y }))["key-color"];
      showValues(settings.key, keySchema, ""); $("swatch").style.background = "#" + settings.key["key-color"]; status(""); $("view").value = "composite"; refresh(); settingsChanged();
    } catch (e) { error(e.message); }
  });
}

// The command line's caption files, in its order: each kept (a track, or drawn with --burn-captions) or dropped, with
// its track's language and title. The server checks a change (a language that is no ISO 639-2 code, burning with none
// kept) before the picture is asked for with it: one it refuses is said, and the last good captions put back.
function bindCaptions() {
  if (!has("captions")) return;
  let good = JSON.stringify([settings.captions, settings["burn-captions"]]);
  const list = $("captions");
  const read = () => {
    settings.captions = info.captionFiles.filter(f => $("caption" + f.index + "keep").checked).map(f =>
      ({ index: f.index, lang: $("caption" + f.index + "lang").value.trim(), title: $("caption" + f.index + "title").value }));
    settings["burn-captions"] = $("burnCaptions").checked;
  };
  const show = () => {
    const [kept, burn] = JSON.parse(good);
    for (const f of info.captionFiles) {
      const c = kept.find(k => k.index === f.index);
      $("caption" + f.index + "keep").checked = !!c;
      if (c) { $("caption" + f.index + "lang").value = c.lang; $("caption" + f.index + "title").value = c.title; }
    }
    $("burnCaptions").checked = burn;
    $("burnCaptions").disabled = kept.length === 0 && !burn;
  };
  const changed = async () => {
    read();
    const r = await post("/api/command", {}, settings);
    if (!r.ok) { [settings.captions, settings["burn-captions"]] = JSON.parse(good); show(); return error(r.body.error); }
    good = JSON.stringify([settings.captions, settings["burn-captions"]]);
    show();
    $("command").value = r.body.command; $("job").value = r.body.job; valid(); refresh();
  };
  for (const f of info.captionFiles) {
    const row = document.createElement("div");
    row.className = "caption"; row.dataset.caption = f.index;
    row.innerHTML = `<label><input type="checkbox" id="caption${f.index}keep"><span class="name"></span></label>
      <label><span>language</span><input id="caption${f.index}lang" size="4" placeholder="none"></label>
      <label><span>title</span><input id="caption${f.index}title" placeholder="none"></label>`;
    row.querySelector(".name").textContent = f.file.split("/").pop();
    row.title = f.file;
    list.append(row);
    for (const field of ["keep", "lang", "title"]) $("caption" + f.index + field).addEventListener("change", changed);
  }
  $("burnCaptions").addEventListener("change", changed);
  show();
}

// The mix: a row a track (its gain, mute, offset and duck depth, made from the kind's `gain`, `offset` and `duck`
// options: their ranges are the job file's), then the loudness and level match, made from theirs.
function bindMix() {
  const table = $("mix");
  // A `SOURCE=VALUE` option's value (`duck` is that or a list of sources), its number where it may also be a word
  // (`offset`'s seconds or "auto": a source placed by its sound keeps it until the page gives it seconds).
  const pairValue = name => jobSchema[name].additionalProperties ?? jobSchema[name].oneOf.find(s => s.type === "object").additionalProperties;
  const value = name => { const v = pairValue(name); return v.oneOf ? v.oneOf.find(s => s.type === "number") : v; };
  for (const track of info.tracks) {
    const row = table.insertRow();
    row.innerHTML = `<td></td><td class="lufs">…</td><td></td><td><input type="checkbox"></td><td></td><td></td>`;
    // Each track says which file it is (a concat's clip2:1 is the second clip given, wherever it is moved; a still's
    // audio2:1 the second sound file).
    const clip = has("clips") && /^clip(\d+):/.exec(track.name);
    const file = clip ? info.clips[Number(clip[1]) - 1].name : track.file;
    row.cells[0].textContent = track.name;
    if (file) {
      row.cells[0].title = file;
      row.cells[0].append(Object.assign(document.createElement("div"), { className: "file", textContent: file }));
    }
    // The server gives the mix track by track (a whole source's gain, offset, mute and duck on each of its tracks);
    // a track's 0 (0 dB, no offset, not ducked) is no value.
    const byTrack = (name, cell, opts) => control(row.cells[cell], name + " of " + track.name, value(name),
      () => settings[name][track.name], v => { if (v === undefined) delete settings[name][track.name]; else settings[name][track.name] = v; },
      "", settingsChanged, { caption: "", blank: 0, live: true, ...opts });
    byTrack("gain", 2, { slider: 0.5 });
    // Seconds, or "auto": the track placed where its sound lies against the reference's (--offset NAME=auto).
    byTrack("offset", 4, { word: "auto" });
    byTrack("duck", 5);
    const mute = row.cells[3].querySelector("input");
    mute.checked = settings.mute.includes(track.name);
    mute.addEventListener("change", () => {
      settings.mute = settings.mute.filter(m => m !== track.name);
      if (mute.checked) settings.mute.push(track.name);
      settingsChanged();
    });
    row.dataset.track = track.name;
  }
  controls($("mixControls"), settings, { loudness: jobSchema.loudness, "level-match": jobSchema["level-match"] }, "",
           settingsChanged, { live: true });
  $("loudness").placeholder = "off";
  getJSON("/api/loudness").then(levels => {
    for (const row of table.rows) if (row.dataset.track) {
      const l = levels[row.dataset.track];
      row.querySelector(".lufs").textContent = l === undefined ? "silent" : l.toFixed(1);
    }
  }).catch(e => error(e.message));
}

async function render(overwrite) {
  const r = await post("/api/render", overwrite ? { overwrite: "1" } : {}, settings);
  if (r.status === 409 && !overwrite) {
    if (confirm(r.body.error + "?")) return render(true);
    return;
  }
  if (!r.ok) { error(r.body.error); return; }
  status("rendering …");
  $("progress").hidden = false;
  const poll = setInterval(async () => {
    const s = await getJSON("/api/render");
    $("progress").value = s.progress;
    if (s.state !== "running") {
      clearInterval(poll);
      $("progress").hidden = true;
      if (s.state === "done") status("written: " + s.output, "ok"); else error("failed: " + s.error);
    }
  }, 300);
}

// A few seconds around T, picture and mixed sound, rendered by mixwrite as the movie will have them.
// window.mwAudition: how long the last one took (click to playable), for the benchmark.
async function audition() {
  const button = $("auditionButton"), started = performance.now();
  button.disabled = true; status("making the audition …");
  $("audition").pause();   // the last one stops: it would take the cores the new one is made on
  try {
    const r = await fetch(api("/api/audition", { t: $("t").value }), { method: "POST",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify(settings) });
    if (!r.ok) { error((await r.json()).error); return; }
    const video = $("audition");
    if (video.src) URL.revokeObjectURL(video.src);
    video.src = URL.createObjectURL(await r.blob());
    await new Promise((done, fail) => { video.oncanplay = done; video.onerror = () => fail(new Error("the audition cannot be played")); });
    window.mwAudition = performance.now() - started;
    status("");
    applyZoom();
    video.play().catch(() => {});
  } catch (e) { error(e.message); } finally { button.disabled = false; }
}

async function start() {
  info = await getJSON("/api/info");
  window.mwInfo = info;   // the page's tests read the layout it drew from (a module's names are its own)
  const options = await getJSON("/api/options");
  keySchema = options.key;
  layerSchema = Object.fromEntries(Object.entries(options.layer).filter(([name]) => name !== "place"));
  jobSchema = options.job;
  settings = info.settings;
  document.title = "mixwrite tune: " + info.kind;
  if (!info.width) { $("pictures").style.display = "none"; status("sound only: no picture; the mix, its audition and the render"); }
  for (const e of document.querySelectorAll("[data-part]"))
    if (has(e.dataset.part)) e.style.display = e.tagName === "LABEL" ? "flex" : "block";
  settings.gain = settings.gain || {}; settings.mute = settings.mute || []; settings.offset = settings.offset || {};
  settings.duck = settings.duck || {};
  if (info.image) $("stillImage").textContent = info.image;
  const t = $("t");
  t.max = Math.max(0, info.duration - 1 / info.frameRate);
  t.step = 1 / info.frameRate;
  // It opens in the middle of where fx shows (not of the movie, which may go on after fx ends); others in the middle.
  t.value = Math.min(Math.min(info.fxDuration ?? info.duration, info.duration) / 2, Number(t.max)).toFixed(3);
  const showTime = () => { $("tOut").textContent = Number(t.value).toFixed(2) + " s"; };
  showTime();
  t.addEventListener("input", () => { showTime(); refresh(); });
  $("view").addEventListener("change", () => refresh());
  $("zoom").addEventListener("change", applyZoom);
  window.addEventListener("resize", applyZoom);
  $("output").textContent = info.output;
  $("render").addEventListener("click", () => render(false));
  $("auditionButton").addEventListener("click", audition);
  for (const b of document.querySelectorAll("[data-copy]")) {
    b.addEventListener("click", async () => {
      let said = "copied";
      try { await navigator.clipboard.writeText($(b.dataset.copy).value); } catch { $(b.dataset.copy).select(); said = "selected: press Ctrl+C"; }
      b.textContent = said;
      setTimeout(() => { b.textContent = "copy"; }, 1500);
    });
  }
  if (has("key")) bindKey();
  if (has("layers")) drawLayers();
  bindFrame();
  bindCaptions();
  bindMix();
  drawTimeline();
  drawClips();
  refresh();
  settingsChanged();
}
start().catch(e => error(e.message));
