// The setup form of any game system, drawn from its setup's JSON Schema (GET
// /api/rulesets/ID/form): one engine for every system, nothing written per field. Each field
// is checked as it is typed by the server, with the command line's own words (POST
// .../setup/check); the setup is saved whole (PUT .../setup) and each side confirms the revision
// it saw. A phone takes its side (POST .../setup/claim, the key kept in this browser): it then
// shows and changes only that side's fighters, models or units, and the other side's saves
// arrive on the table's live stream ("setup" notes) instead of being looked for. The rulings
// the event plays with and the dice come from the form too. Hand-written (no framework).
"use strict";
(() => {
  const body = document.body;
  const base = `/api/tournaments/${body.dataset.tournament}/tables/${body.dataset.table}/setup`;
  const $ = (id) => document.getElementById(id);
  const formBox = $("setup-form");
  if (!formBox) return;
  let pending = JSON.parse($("pending-data").textContent);
  let form = null; // {schema, choices, members, side_field}
  let data = null;
  let dirty = false;
  let timer = null;
  const store = `bxb-side:${body.dataset.tournament}:${body.dataset.table}`;
  let mine = JSON.parse(localStorage.getItem(store) || "null"); // {side, key}: the side taken here
  let extra = { rulings: {}, seed: null, fair: false }; // the rulings and the dice
  let terms = false; // this phone changed the rulings or the dice, not saved yet

  const { el, copy } = bxbForms;
  let engine = null; // the form (forms.js)
  // Each edit asks for a check (after a pause in typing); an answer older than one already shown
  // is dropped (its setup is not the one on screen). formBox's data-asked and data-checked: the
  // last check asked and the last one answered (what a test waits on).
  const checks = bxb.asking();
  function changed(path) {
    dirty = true;
    const ticket = checks.ask();
    formBox.dataset.asked = String(ticket.number);
    clearTimeout(timer);
    timer = setTimeout(() => check(path, ticket), 200);
  }
  async function check(path, ticket) {
    let found = null;
    try {
      ({ data: found } = await bxb.api("POST", `/api/rulesets/${form.ruleset}/setup/check`, {
        setup: data,
        field: path,
      }));
    } finally {
      if (ticket.newer()) {
        formBox.dataset.checked = String(ticket.number);
      } else {
        found = null;
      }
    }
    if (!found) return;
    for (const e of formBox.querySelectorAll(`[data-error]`)) {
      if (e.dataset.error === path || e.dataset.error === found.field) e.textContent = "";
    }
    const mine = formBox.querySelector(`[data-error="${CSS.escape(path)}"]`);
    if (mine) mine.textContent = found.field_message;
    const there = formBox.querySelector(`[data-error="${CSS.escape(found.field)}"]`);
    if (there && found.message) there.textContent = found.message;
    $("setup-problem").textContent = found.ok ? "" : found.message;
  }

  // The form of the system picked last: a form asked for before it (the page's first, while the
  // system is being picked) and answered after it is dropped.
  const loads = bxb.asking();
  async function load(ruleset, setup) {
    const ticket = loads.ask();
    const found = form && form.ruleset === ruleset ? form : (await bxb.api("GET", `/api/rulesets/${ruleset}/form`)).data;
    if (!ticket.latest()) return;
    if (form && form.ruleset !== found.ruleset) {
      // another game: a check asked of the last one's setup is not this one's (dropped)
      clearTimeout(timer);
      checks.drop();
      formBox.dataset.checked = String(checks.asked);
    }
    form = found;
    engine = bxbForms.make(formBox, form, null, changed, () => mine);
    data = setup ? copy(setup) : engine.blank(form.schema);
    engine.data = data;
    if (mine) ownSide(mine.side);
    $("setup-ruleset").value = ruleset;
    engine.draw();
    drawRulings();
    body.dataset.form = ruleset;
  }

  // --- the side this phone enters ---------------------------------------------------------------

  // the side's entry in the setup's list of sides (a Necromunda gang), made if it has none
  function ownSide(side) {
    const field = form.sides_field;
    if (!field || !form.schema) return;
    const top = engine.resolve(form.schema);
    const item = engine.plain(engine.plain((top.properties || {})[field] || {}).items || {});
    const listed = data[field] || [];
    const id = (e) => (e && typeof e === "object" ? e.id : e);
    if (listed.some((e) => id(e) === side)) return;
    listed.push(item.type === "object" ? Object.assign(engine.blank(item), { id: side }) : side);
    data[field] = listed;
  }

  function showSide() {
    const named = $("side-names");
    if (!named) return;
    named.replaceChildren(...(pending.named || []).map((n) => el("option", { value: n })));
    $("side-taken").textContent = mine ? `This phone enters ${mine.side}.` : "";
    $("side-pick").hidden = !!mine;
    body.dataset.side = mine ? mine.side : "";
  }

  async function takeSide() {
    $("side-error").textContent = "";
    const side = $("my-side").value.trim();
    try {
      const taken = (await bxb.api("POST", `${base}/claim`, { side })).data;
      mine = { side: taken.side, key: taken.key };
      localStorage.setItem(store, JSON.stringify(mine));
      ownSide(mine.side);
      dirty = true;
      showSide();
      engine.draw();
      showPending();
    } catch (e) {
      $("side-error").textContent = e.message;
    }
  }
  if ($("take-side")) $("take-side").addEventListener("click", takeSide);

  // --- the rulings the event plays with, and the dice -------------------------------------------

  function drawRulings() {
    const box = $("rulings");
    box.replaceChildren();
    for (const r of form.rulings || []) {
      const pick = el("select", { "data-ruling": r.name });
      for (const c of r.choices) pick.append(el("option", { value: c, text: c === r.default ? `${c} (default)` : c }));
      pick.value = extra.rulings[r.name] || r.default;
      pick.addEventListener("change", () => {
        if (pick.value === r.default) delete extra.rulings[r.name];
        else extra.rulings[r.name] = pick.value;
        dirty = terms = true;
      });
      const why = el("details", {}, el("summary", { text: "why a ruling" }), el("p", { class: "muted", text: r.note }));
      box.append(
        el("div", { class: "ruling field", "data-ruling-box": r.name },
          el("label", {}, el("strong", { text: r.name }), " ", pick),
          el("small", { class: "muted", text: `${r.summary} (${r.citation})` }),
          r.note ? why : null)
      );
    }
    const mode = extra.fair ? "fair" : extra.seed != null ? "seeded" : "typed";
    for (const radio of document.querySelectorAll("input[name=setup-dice]")) radio.checked = radio.value === mode;
    $("setup-seed").value = extra.seed || "";
    $("setup-seed").hidden = mode !== "seeded";
  }
  for (const radio of document.querySelectorAll("input[name=setup-dice]")) {
    radio.addEventListener("change", () => {
      extra.fair = radio.value === "fair";
      if (radio.value === "seeded" && !extra.seed) {
        const bytes = crypto.getRandomValues(new Uint8Array(8));
        extra.seed = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
      }
      if (radio.value !== "seeded") extra.seed = null;
      drawRulings();
      dirty = terms = true;
    });
  }
  $("setup-seed").addEventListener("input", () => {
    extra.seed = $("setup-seed").value || null;
    dirty = terms = true;
  });

  function dice(draft) {
    if (draft.fair) return "fair digital dice (the seed committed when the battle starts, then a value from each side)";
    if (draft.seed != null) return `seeded digital dice (seed ${draft.seed})`;
    return "physical dice, typed at the table";
  }

  // --- the forces as entered, and who has confirmed ---------------------------------------------

  function showPending() {
    const draft = pending.draft;
    $("setup-revision").textContent = draft ? `revision ${draft.revision}` : "nothing saved yet";
    body.dataset.revision = draft ? String(draft.revision) : "0";
    showSide();
    const forces = $("forces");
    forces.replaceChildren();
    for (const force of pending.forces || []) {
      const units = el("ul", { class: "units" });
      for (const u of force.units) {
        const stats = u.stats.map((s) => `${s.name} ${s.value}`).join(" · ");
        units.append(el("li", { text: `${u.name} (${u.id}) ${u.status}${stats ? " · " + stats : ""}` }));
      }
      const whose = mine && force.side === mine.side ? " (yours)" : "";
      forces.append(el("div", { class: "force", "data-side": force.side }, el("h3", { text: force.side + whose }), units));
    }
    if (draft) {
      const set = Object.entries(draft.rulings || {}).map(([k, v]) => `${k} = ${v}`);
      forces.append(
        el("p", { id: "setup-terms", class: "muted", text: `Dice: ${dice(draft)}. Rulings: ${set.length ? set.join(", ") : "every one at its default"}.` })
      );
    }
    $("setup-waiting").textContent = pending.problem
      ? `Not ready yet: ${pending.problem}`
      : draft ? `Confirmed: ${(pending.confirmed || []).join(", ") || "nobody yet"}` : "";
    const confirms = $("confirms");
    confirms.replaceChildren();
    if (draft && !pending.problem) {
      for (const side of pending.sides) {
        const done = (pending.confirmed || []).includes(side);
        const elsewhere = (pending.claimed || []).includes(side) && !(mine && mine.side === side);
        if (elsewhere && body.dataset.judge !== "yes") {
          confirms.append(el("p", { class: "muted", "data-waiting": side, text: done ? `${side} confirmed` : `${side} confirms on their phone` }));
          continue;
        }
        confirms.append(
          el("button", {
            class: "btn big confirm",
            "data-side": side,
            text: done ? `${side} confirmed` : `Confirm as ${side}`,
            onclick: () => confirm(side),
          })
        );
      }
    }
  }

  function started(found) {
    if (found.battle) window.location.href = `/tournaments/${body.dataset.tournament}/tables/${body.dataset.table}`;
  }

  async function confirm(side) {
    try {
      const req = { side, revision: pending.draft.revision };
      if (mine && mine.side === side) req.key = mine.key;
      const { found, ticket } = await write("POST", `${base}/confirm`, req);
      started(found); // before the ticket's check: a started battle is final, never stale
      if (!ticket.latest()) return; // a note heard meanwhile: its setup is newer
      pending = found;
      showPending();
    } catch (e) {
      $("setup-error").textContent = e.message;
    }
  }

  $("setup-save").addEventListener("click", async () => {
    $("setup-error").textContent = "";
    try {
      const draft = { ruleset: form.ruleset, setup: data, revision: pending.draft ? pending.draft.revision : 0 };
      Object.assign(draft, { rulings: extra.rulings, seed: extra.seed, fair: extra.fair });
      if (pending.draft) draft.round = pending.draft.round;
      if (mine) Object.assign(draft, { side: mine.side, key: mine.key });
      const { found: saved, ticket } = await write("PUT", base, draft);
      dirty = terms = false;
      if (!ticket.latest()) return; // a note heard meanwhile: its setup is newer
      pending = saved;
      showPending();
    } catch (e) {
      $("setup-error").textContent = e.message;
    }
  });
  $("setup-ruleset").addEventListener("change", () => load($("setup-ruleset").value, null));
  const judge = $("judge-start");
  if (judge) {
    judge.addEventListener("click", async () => {
      try {
        started((await bxb.api("POST", `${base}/start`)).data);
      } catch (e) {
        $("setup-error").textContent = e.message;
      }
    });
  }

  // The setup as saved now, with this phone's own side's part as it stands here (no other phone
  // writes it, so nothing of the other's is lost); the shared fields are the last saved ones.
  function merged(server) {
    if (!dirty || !form || form.ruleset !== server.ruleset) return server.setup;
    if (!mine) return data;
    const out = copy(server.setup);
    // this phone's entries where the saved list has them (the order of the sides is kept)
    const keep = (field, own) => {
      const saved = out[field] || [];
      const at = saved.findIndex(own);
      const others = saved.filter((e) => !own(e));
      const pos = at < 0 ? others.length : saved.slice(0, at).filter((e) => !own(e)).length;
      others.splice(pos, 0, ...(data[field] || []).filter(own));
      out[field] = others;
    };
    for (const m of form.members) keep(m, (e) => e[form.side_field] === mine.side);
    if (form.sides_field) keep(form.sides_field, (e) => (e && typeof e === "object" ? e.id : e) === mine.side);
    return out;
  }

  // The other phone's saves, takes and confirmations: heard on the table's live stream. Notes
  // come close together: the setup as asked last is shown, and an answer to an earlier asking
  // is dropped, never shown over it. A write of this phone's own is an asking too, its ticket
  // taken as it is sent: a note heard while it is on its way (the other phone's save after it)
  // is asked later, so its answer is shown and the write's own answer, older, is dropped.
  // `force`: the form drawn anew even at the revision on screen.
  const heard = bxb.asking();
  // A write of this phone's own, its ticket taken as it is sent. Refused, it asks for the setup
  // again: a refresh asked before it and answered after it was dropped for its sake.
  async function write(method, url, body) {
    const ticket = heard.ask();
    try {
      return { found: (await bxb.api(method, url, body)).data, ticket };
    } catch (e) {
      refresh();
      throw e;
    }
  }
  async function refresh(force = false) {
    const ticket = heard.ask();
    const found = (await bxb.api("GET", base)).data;
    if (!ticket.latest()) return;
    // gone once the battle has started (the other phone's confirmation, or a judge)
    if (!found.draft && pending.draft) found.battle = found.battle || true;
    started(found);
    const was = pending.draft ? pending.draft.revision : 0;
    const now = found.draft ? found.draft.revision : 0;
    pending = found;
    if ((force || now !== was) && found.draft) {
      // the rulings and dice as saved, unless this phone is changing them itself
      if (!terms) extra = { rulings: found.draft.rulings || {}, seed: found.draft.seed, fair: !!found.draft.fair };
      await load(found.draft.ruleset, merged(found.draft));
    }
    showPending();
  }
  bxb.listen(`/api/tournaments/${body.dataset.tournament}/tables/${body.dataset.table}/stream`, (note) => {
    if (note.kind === "setup" || note.kind === "started") refresh();
  }, $("live"));

  // The event's rosters: two picked, and who takes part (all, unless unticked)
  let kept = [];
  const pickA = $("roster-a");
  const pickB = $("roster-b");
  function showMembers() {
    const box = $("roster-members");
    box.replaceChildren();
    for (const pick of [pickA, pickB]) {
      const roster = kept[Number(pick.value)];
      if (!roster) continue;
      for (const m of roster.members) {
        const tick = el("input", { type: "checkbox", "data-member": m.id });
        tick.checked = true;
        box.append(el("label", { class: "check" }, tick, ` ${m.name || m.id} (${roster.name})`));
      }
      for (const note of roster.notes) box.append(el("p", { class: "muted", text: `not mapped: ${note}` }));
    }
  }
  async function loadRosters() {
    kept = (await bxb.api("GET", `/api/tournaments/${body.dataset.tournament}/rosters`)).data;
    for (const pick of [pickA, pickB]) {
      pick.replaceChildren(el("option", { value: "", text: "(none)" }));
      kept.forEach((k, i) => pick.append(el("option", { value: String(i), text: `${k.name} (${k.player}) · ${k.ruleset}` })));
      pick.addEventListener("change", showMembers);
    }
    $("rosters-box").hidden = kept.length < 2;
  }
  $("use-rosters").addEventListener("click", async () => {
    $("roster-error").textContent = "";
    const picked = [pickA, pickB].map((p) => kept[Number(p.value)]).filter((k) => k);
    const ticks = [...document.querySelectorAll("[data-member]")];
    const only = ticks.every((t) => t.checked) ? null : ticks.filter((t) => t.checked).map((t) => t.dataset.member);
    try {
      const { found: made, ticket } = await write("POST", `${base}/rosters`, {
        rosters: picked.map((k) => ({ player: k.player, name: k.name })),
        only,
        revision: pending.draft ? pending.draft.revision : 0,
      });
      dirty = false;
      // a note heard meanwhile: its setup is newer, but may have been drawn over this phone's
      // side as it stood before the rosters replaced it: the setup as it stands, drawn anew
      if (!ticket.latest()) return refresh(true);
      pending = made;
      await load(pending.draft.ruleset, pending.draft.setup);
      showPending();
    } catch (e) {
      $("roster-error").textContent = e.message;
    }
  });
  loadRosters();

  const draft = pending.draft;
  if (draft) extra = { rulings: draft.rulings || {}, seed: draft.seed, fair: !!draft.fair };
  load(draft ? draft.ruleset : $("setup-ruleset").value, draft ? draft.setup : null).then(showPending);
})();
