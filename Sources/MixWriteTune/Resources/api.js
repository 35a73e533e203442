// The page's requests to mixwrite's server (each with the token the address carried) and what the page says.
export const token = new URLSearchParams(location.search).get("token");
export const $ = id => document.getElementById(id);

export function api(path, params = {}) {
  const q = new URLSearchParams({ token, ...params });
  return path + "?" + q.toString();
}
export async function getJSON(path, params) {
  const r = await fetch(api(path, params));
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}
export async function post(path, params = {}, body = {}) {
  const r = await fetch(api(path, params), { method: "POST", headers: { "Content-Type": "application/json" },
                                             body: JSON.stringify(body) });
  return { ok: r.ok, status: r.status, body: await r.json() };
}
// What the page says, at the top of the panel: "error" in red (until a valid change clears it), "ok" in green.
export function status(text, kind = "") { $("status").textContent = text || ""; $("status").className = text ? kind : ""; }
export function error(text) { status(text, "error"); }
export function valid() { if ($("status").className === "error") status(""); }
