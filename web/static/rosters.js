// The event's rosters between rounds: each as it stands and its history; the judge's edits
// (POST /api/tournaments/SLUG/rosters/edits), each kept as a new version of the roster.
// Hand-written (no framework): a few dozen lines.
"use strict";
(() => {
  const slug = document.body.dataset.tournament;
  const el = (tag, text) => {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const slugOf = (name) => name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "recruit";
  // a value as typed: a number, true/false, a list in JSON; else the text itself
  const valueOf = (text) => {
    const t = text.trim();
    if (t === "") return null;
    try {
      return JSON.parse(t);
    } catch (e) {
      return t;
    }
  };

  for (const card of document.querySelectorAll("section.roster")) {
    const who = { player: card.dataset.player, name: card.dataset.name };
    const q = (s) => card.querySelector(s);
    let kept = null;
    // The roster as its latest version: an answer older than the one shown (two edits sent
    // close together, the first answered last) is dropped.
    const keep = (data) => {
      if (kept && data.version < kept.version) return;
      kept = data;
      show();
    };
    const entries = () => Object.entries(kept.forces).flatMap(([to, list]) => list.map((e) => ({ to, e })));

    function show() {
      q(".version").textContent = String(kept.version);
      card.dataset.version = String(kept.version);
      const members = q(".members");
      members.replaceChildren();
      for (const { to, e } of entries()) {
        // a list of tables (weapons) by their names; other values as written
        const shown = (v) => (Array.isArray(v) ? v.map((x) => (x && typeof x === "object" ? x.name || x.id : x)).join(", ") : String(v));
        const stats = Object.entries(e).filter(([k]) => !["id", "name"].includes(k)).map(([k, v]) => `${k} ${shown(v)}`);
        members.append(el("li", `${e.name || e.id} (${e.id}, ${to})${stats.length ? ": " + stats.join(" · ") : ""}`));
      }
      const history = q(".history");
      history.replaceChildren();
      for (const step of kept.history) {
        const after = step.round != null ? ` after round ${step.round}` : "";
        const what = step.edits.join("; ") || "imported";
        history.append(el("li", `v${step.version} ${step.made}${after}: ${what}${step.reason ? ` (${step.reason})` : ""}`));
      }
      const pick = q(".member");
      if (!pick) return;
      const was = pick.value;
      pick.replaceChildren();
      for (const { e } of entries()) {
        const o = el("option", `${e.name || e.id} (${e.id})`);
        o.value = e.id;
        pick.append(o);
      }
      if ([...pick.options].some((o) => o.value === was)) pick.value = was;
      fields();
    }
    function fields() {
      const found = entries().find(({ e }) => e.id === q(".member").value);
      const list = card.querySelector("datalist");
      list.replaceChildren(...Object.keys(found ? found.e : {}).filter((k) => k !== "id").map((k) => Object.assign(el("option"), { value: k })));
    }
    async function edit(change) {
      q(".error").textContent = "";
      const round = q(".round").value.trim();
      const body = Object.assign({}, who, { edits: [change], reason: q(".reason").value });
      if (round !== "") body.round = Number(round);
      try {
        keep((await bxb.api("POST", `/api/tournaments/${slug}/rosters/edits`, body)).data);
      } catch (e) {
        q(".error").textContent = e.message;
      }
    }
    if (q(".set")) {
      q(".member").addEventListener("change", fields);
      q(".set").addEventListener("click", () =>
        edit({ edit: "set", entry: q(".member").value, field: q(".field-name").value.trim(), value: valueOf(q(".value").value) })
      );
      q(".remove").addEventListener("click", () => edit({ edit: "remove", entry: q(".member").value }));
      q(".add").addEventListener("click", () => {
        const like = entries().find(({ e }) => e.id === q(".member").value);
        const name = q(".recruit").value.trim();
        if (!like) return;
        const value = Object.assign(JSON.parse(JSON.stringify(like.e)), { id: slugOf(name), name });
        edit({ edit: "add", to: like.to, value });
      });
    }
    const params = new URLSearchParams(who);
    bxb.api("GET", `/api/tournaments/${slug}/rosters/kept?${params}`).then(({ data }) => {
      keep(data);
      card.dataset.loaded = "yes";
    });
  }
})();
