/// The tuning page: plain HTML, CSS and JavaScript, served by mixwrite itself (no CDN, no build step). Kept in
/// the binary, so an installed mixwrite (`make install`, the .deb) needs no resource folder beside it.
enum Page {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>mixwrite tune</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 0; display: grid; grid-template-columns: 1fr 380px; height: 100vh; }
  #stage { overflow: auto; background: #222; position: relative; }
  #stage img { display: block; image-rendering: pixelated; cursor: crosshair; min-width: 0; }
  #stage img[hidden] { display: none; }
  #pictures { display: flex; gap: 4px; }
  aside { padding: 10px 14px; overflow-y: auto; border-left: 1px solid #ccc; }
  h2 { font-size: 13px; text-transform: uppercase; color: #555; margin: 14px 0 6px; }
  label { display: flex; align-items: center; gap: 6px; margin: 4px 0; }
  label > span:first-child { width: 86px; }
  input[type=range] { flex: 1; }
  table { width: 100%; border-collapse: collapse; font-size: 13px; }
  td { padding: 2px 3px; }
  td input[type=range] { width: 70px; }
  td input[size] { width: 2.6em; }
  textarea { width: 100%; height: 70px; font: 12px monospace; }
  #status { color: #a00; min-height: 1.2em; }
  #swatch { width: 22px; height: 22px; border: 1px solid #888; display: inline-block; }
  progress { width: 100%; }
  video { width: 100%; background: #000; margin-top: 4px; }
  video:not([src]) { display: none; }
</style>
</head>
<body>
<div id="stage"><div id="pictures"><img id="picture" alt="the blended picture"><img id="second" alt="" hidden></div></div>
<aside>
  <h2>Picture</h2>
  <label><span>time</span><input id="t" type="range" min="0" value="0" step="any"><output id="tOut"></output></label>
  <label><span>view</span><select id="view">
    <option value="composite">composite</option><option value="matte">matte</option><option value="fx">fx</option>
    <option value="base">base</option><option value="side">side by side (composite, matte)</option></select></label>
  <label><span>zoom</span><select id="zoom"><option value="fit">fit</option><option value="1">100%</option>
    <option value="2">200%</option><option value="4">400%</option><option value="8">800%</option></select></label>
  <h2>Key</h2>
  <label><span>colour</span><span id="swatch"></span><input id="key" size="7">
    <button id="pickButton" title="then click on the fx view">pick on fx</button></label>
  <label><span>threshold</span><input id="threshold" type="range" min="0" max="1" step="0.005"><output id="thresholdOut"></output></label>
  <label><span>smoothing</span><input id="smoothing" type="range" min="0" max="1" step="0.005"><output id="smoothingOut"></output></label>
  <label><span>despill</span><input id="despill" type="checkbox"></label>
  <h2>Mix</h2>
  <table id="mix"><tr><th>track</th><th>LUFS</th><th>gain dB</th><th>mute</th><th>offset s</th>
    <th title="lowered this many dB while the others play; 0: not ducked">duck dB</th></tr></table>
  <label><span>loudness</span><input id="loudness" size="6" placeholder="off"> LUFS</label>
  <label><span>level match</span><input id="levelMatch" type="checkbox"></label>
  <h2>Audition</h2>
  <button id="auditionButton">play 3 s around the time</button>
  <video id="audition" controls></video>
  <h2>Command</h2>
  <textarea id="command" readonly></textarea>
  <button data-copy="command">copy</button>
  <h2>Job-file entry</h2>
  <textarea id="job" readonly></textarea>
  <button data-copy="job">copy</button>
  <h2>Render</h2>
  <div id="output"></div>
  <button id="render">render the movie</button>
  <progress id="progress" max="1" value="0"></progress>
  <div id="status"></div>
</aside>
<script>
"use strict";
const token = new URLSearchParams(location.search).get("token");
const $ = id => document.getElementById(id);
let info, settings, picking = false;
// How long each slider move took to show its picture (input event to the image's load), for the benchmark.
window.mwTimings = [];

function api(path, params = {}) {
  const q = new URLSearchParams({ token, ...params });
  return path + "?" + q.toString();
}
async function getJSON(path, params) {
  const r = await fetch(api(path, params));
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}
async function post(path, params = {}) {
  const r = await fetch(api(path, params), { method: "POST", headers: { "Content-Type": "application/json" },
                                             body: JSON.stringify(settings) });
  return { ok: r.ok, status: r.status, body: await r.json() };
}
function status(text) { $("status").textContent = text || ""; }

// The picture: one request at a time; a change while one is on its way is sent when it arrives (the newest).
let inFlight = false, pending = null;
// Whether a picture is on its way (for tests: the one shown is the last asked for only when not).
window.mwBusy = () => inFlight || pending !== null || !$("picture").complete;
function pictureParams(view) {
  return { t: $("t").value, view, key: settings.keyColor, threshold: settings.threshold,
           smoothing: settings.smoothing, despill: settings.despill ? "1" : "0" };
}
function refresh(started = performance.now()) {
  if (inFlight) { pending = started; return; }
  inFlight = true;
  const side = $("view").value === "side";
  const img = $("picture");
  img.onload = () => {
    window.mwTimings.push(performance.now() - started);
    inFlight = false;
    img.dataset.loaded = String(Number(img.dataset.loaded || 0) + 1);
    if (pending !== null) { const p = pending; pending = null; refresh(p); }
  };
  img.onerror = () => { inFlight = false; status("the picture could not be made"); };
  img.src = api("/api/picture", pictureParams(side ? "composite" : $("view").value));
  $("second").hidden = !side;
  if (side) $("second").src = api("/api/picture", pictureParams("matte"));
  applyZoom();
}
function applyZoom() {
  const z = $("zoom").value;
  for (const img of [$("picture"), $("second")]) {
    img.style.width = z === "fit" ? ($("view").value === "side" ? "49%" : "100%") : (info.width * Number(z)) + "px";
  }
}

// The command and job entry follow every change.
let commandTimer = null;
function settingsChanged() {
  clearTimeout(commandTimer);
  commandTimer = setTimeout(async () => {
    const r = await post("/api/command");
    if (r.ok) { $("command").value = r.body.command; $("job").value = r.body.job; } else status(r.body.error);
  }, 150);
}

function bindKey() {
  for (const name of ["threshold", "smoothing"]) {
    const input = $(name);
    input.value = settings[name];
    $(name + "Out").textContent = Number(settings[name]).toFixed(3);
    input.addEventListener("input", () => {
      settings[name] = Number(input.value);
      $(name + "Out").textContent = settings[name].toFixed(3);
      refresh(); settingsChanged();
    });
  }
  $("despill").checked = settings.despill;
  $("despill").addEventListener("change", () => { settings.despill = $("despill").checked; refresh(); settingsChanged(); });
  const showKey = () => { $("key").value = settings.keyColor; $("swatch").style.background = "#" + settings.keyColor; };
  showKey();
  $("key").addEventListener("change", () => {
    if (/^[0-9a-fA-F]{6}$/.test($("key").value)) { settings.keyColor = $("key").value.toUpperCase(); showKey(); refresh(); settingsChanged(); }
    else status("the key colour is RRGGBB");
  });
  $("pickButton").addEventListener("click", () => { picking = true; $("view").value = "fx"; refresh(); status("click on the screen colour"); });
  $("picture").addEventListener("click", async event => {
    if (!picking) return;
    picking = false;
    const img = $("picture"), box = img.getBoundingClientRect();
    const x = Math.floor((event.clientX - box.left) * info.width / box.width);
    const y = Math.floor((event.clientY - box.top) * info.height / box.height);
    try {
      settings.keyColor = (await getJSON("/api/pick", { t: $("t").value, x, y })).keyColor;
      showKey(); status(""); $("view").value = "composite"; refresh(); settingsChanged();
    } catch (e) { status(e.message); }
  });
}

function bindMix() {
  const table = $("mix");
  for (const track of info.tracks) {
    const row = table.insertRow();
    row.innerHTML = `<td>${track.name}</td><td class="lufs">…</td><td><input type="range" min="-60" max="24" step="0.5" value="0">
      <output>0</output></td><td><input type="checkbox"></td><td><input size="4" value="0"></td>
      <td><input size="3" value="0"></td>`;
    const [gain, mute, offset, duck] = row.querySelectorAll("input");
    const given = settings.gains[track.name] || 0;
    if (given * 2 !== Math.round(given * 2)) gain.step = "any";   // a finer gain from the command line, shown as it is
    gain.value = given;
    row.querySelector("output").textContent = given;
    // The server gives the mix track by track (a whole source's gain, offset, mute and duck on each of its tracks).
    mute.checked = settings.mute.includes(track.name);
    offset.value = settings.offsets[track.name] || 0;
    gain.addEventListener("input", () => {
      row.querySelector("output").textContent = gain.value;
      settings.gains[track.name] = Number(gain.value); settingsChanged();
    });
    mute.addEventListener("change", () => {
      settings.mute = settings.mute.filter(m => m !== track.name);
      if (mute.checked) settings.mute.push(track.name);
      settingsChanged();
    });
    offset.addEventListener("change", () => { settings.offsets[track.name] = Number(offset.value) || 0; settingsChanged(); });
    duck.value = settings.duck[track.name] || 0;
    duck.addEventListener("change", () => { settings.duck[track.name] = Number(duck.value) || 0; settingsChanged(); });
    row.dataset.track = track.name;
  }
  $("loudness").value = settings.loudness ?? "";
  $("loudness").addEventListener("change", () => {
    const v = $("loudness").value.trim();
    settings.loudness = v === "" ? null : Number(v); settingsChanged();
  });
  $("levelMatch").checked = settings.levelMatch;
  $("levelMatch").addEventListener("change", () => { settings.levelMatch = $("levelMatch").checked; settingsChanged(); });
  getJSON("/api/loudness").then(levels => {
    for (const row of table.rows) if (row.dataset.track) {
      const l = levels[row.dataset.track];
      row.querySelector(".lufs").textContent = l === undefined ? "silent" : l.toFixed(1);
    }
  }).catch(e => status(e.message));
}

async function render(overwrite) {
  const r = await post("/api/render", overwrite ? { overwrite: "1" } : {});
  if (r.status === 409 && !overwrite) {
    if (confirm(r.body.error + "?")) return render(true);
    return;
  }
  if (!r.ok) { status(r.body.error); return; }
  status("rendering …");
  const poll = setInterval(async () => {
    const s = await getJSON("/api/render");
    $("progress").value = s.progress;
    if (s.state !== "running") {
      clearInterval(poll);
      status(s.state === "done" ? "written: " + s.output : "failed: " + s.error);
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
    if (!r.ok) { status((await r.json()).error); return; }
    const video = $("audition");
    if (video.src) URL.revokeObjectURL(video.src);
    video.src = URL.createObjectURL(await r.blob());
    await new Promise((done, fail) => { video.oncanplay = done; video.onerror = () => fail(new Error("the audition cannot be played")); });
    window.mwAudition = performance.now() - started;
    status("");
    video.play().catch(() => {});
  } catch (e) { status(e.message); } finally { button.disabled = false; }
}

async function start() {
  info = await getJSON("/api/info");
  settings = info.settings;
  settings.gains = settings.gains || {}; settings.mute = settings.mute || []; settings.offsets = settings.offsets || {};
  settings.duck = settings.duck || {};
  const t = $("t");
  t.max = Math.max(0, info.duration - 1 / info.frameRate);
  t.step = 1 / info.frameRate;
  t.value = Math.min(info.duration / 2, Number(t.max)).toFixed(3);
  const showTime = () => { $("tOut").textContent = Number(t.value).toFixed(2) + " s"; };
  showTime();
  t.addEventListener("input", () => { showTime(); refresh(); });
  $("view").addEventListener("change", () => refresh());
  $("zoom").addEventListener("change", applyZoom);
  $("output").textContent = info.output;
  $("render").addEventListener("click", () => render(false));
  $("auditionButton").addEventListener("click", audition);
  for (const b of document.querySelectorAll("[data-copy]")) {
    b.addEventListener("click", () => navigator.clipboard.writeText($(b.dataset.copy).value).catch(() => $(b.dataset.copy).select()));
  }
  bindKey();
  bindMix();
  refresh();
  settingsChanged();
}
start().catch(e => status(e.message));
</script>
</body>
</html>
"""#
}
