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

  const defs = () => form.schema.$defs || {};
  const resolve = (s) => {
    while (s && s.$ref) s = defs()[s.$ref.split("/").pop()];
    return s || {};
  };
  const plain = (s) => {
    s = resolve(s);
    if (s.anyOf) {
      const rest = s.anyOf.filter((x) => resolve(x).type !== "null");
      const nullable = rest.length < s.anyOf.length;
      if (rest.length === 1) return Object.assign({}, resolve(rest[0]), { nullable });
      // a whole number or a half: a number
      const kinds = rest.map((x) => resolve(x).type);
      if (kinds.every((k) => k === "integer" || k === "number")) return { type: "number", nullable };
    }
    return s;
  };
  const pattern = (path) => path.replace(/\[\d+\]/g, "[]");
  const copy = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
  const scalar = (s) => ["string", "integer", "number", "boolean"].includes(s.type) || !!s.enum;

  function blank(schema) {
    const s = plain(schema);
    if (s.type === "object" && s.properties) {
      const out = {};
      for (const key of Object.keys(s.properties)) {
        const field = resolve(s.properties[key]);
        if ("default" in field) out[key] = copy(field.default);
        else if ((s.required || []).includes(key)) out[key] = blank(field);
      }
      return out;
    }
    if (s.nullable) return null;
    if (s.type === "array" && s.prefixItems) return s.prefixItems.map(blank);
    if (s.type === "array") return [];
    if (s.type === "object") return {};
    if (s.enum) return s.enum[0];
    if (s.type === "string") return "";
    if (s.type === "boolean") return false;
    return null; // a number still to be typed: the check says so
  }

  function parts(path) {
    return path.match(/[A-Za-z_][A-Za-z0-9_]*|\d+/g) || [];
  }
  function getAt(path) {
    let v = data;
    for (const p of parts(path)) v = v == null ? undefined : v[p];
    return v;
  }
  function setAt(path, value) {
    const ps = parts(path);
    let v = data;
    for (const p of ps.slice(0, -1)) v = v[p];
    v[ps[ps.length - 1]] = value;
  }

  function typed(s, text) {
    if (s.type === "integer" || s.type === "number") {
      const t = text.trim();
      if (t === "") return null;
      if (/^-?\d+$/.test(t)) return parseInt(t, 10);
      if (s.type === "number" && /^-?\d*\.?\d+$/.test(t)) return parseFloat(t);
      return t; // as typed: the check names what was expected
    }
    if (s.nullable && text === "") return null;
    return text;
  }

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v);
    }
    for (const kid of kids) if (kid) e.append(kid);
    return e;
  }
  const words = (key) => key.replace(/_/g, " ");

  function changed(path) {
    dirty = true;
    clearTimeout(timer);
    timer = setTimeout(() => check(path), 200);
  }

  function scalarInput(s, path, label) {
    const value = getAt(path);
    const err = el("small", { class: "field-error", "data-error": path });
    let input;
    if (s.enum) {
      input = el("select", { "data-path": path });
      if (s.nullable) input.append(el("option", { value: "", text: "(none)" }));
      for (const option of s.enum) input.append(el("option", { value: option, text: option }));
      input.value = value == null ? "" : value;
      input.addEventListener("change", () => {
        setAt(path, input.value === "" ? null : input.value);
        changed(path);
      });
    } else if (s.type === "boolean") {
      input = el("input", { type: "checkbox", "data-path": path });
      input.checked = !!value;
      input.addEventListener("change", () => {
        setAt(path, input.checked);
        changed(path);
      });
      return el("label", { class: "check" }, input, ` ${words(label)}`, err);
    } else {
      const numeric = s.type === "integer" || s.type === "number";
      input = el("input", { "data-path": path, autocomplete: "off" });
      if (numeric) input.setAttribute("inputmode", s.type === "integer" ? "numeric" : "decimal");
      input.value = value == null ? "" : String(value);
      input.addEventListener("input", () => {
        setAt(path, typed(s, input.value));
        changed(path);
      });
    }
    return el("label", { class: numeric(s) ? "field num" : "field" }, words(label), input, err);
  }
  const numeric = (s) => s.type === "integer" || s.type === "number";

  function chips(s, item, path, label) {
    // a list of values: a chip per value the rules list, and free text for others
    const listed = (form.choices[pattern(path) + "[]"] || []).map((c) => c.value);
    // a member's list naming shared entries by id (a 40K model's weapons): their ids
    for (const [field, named] of form.shared || []) {
      if (form.members.some((m) => pattern(path) === `${m}[].${named}`)) {
        for (const e of data[field] || []) if (e && e.id && !listed.includes(e.id)) listed.push(e.id);
      }
    }
    const known = item.enum ? item.enum : listed;
    const box = el("div", { class: "chips" });
    for (const value of known) {
      const on = (getAt(path) || []).includes(value);
      box.append(
        el("button", {
          type: "button",
          class: on ? "chip on" : "chip",
          "data-chip": path,
          "data-value": value,
          text: value,
          onclick: (e) => {
            const list = getAt(path) || [];
            const i = list.indexOf(value);
            if (i >= 0) list.splice(i, 1);
            else list.push(value);
            setAt(path, list);
            e.target.classList.toggle("on", i < 0);
            changed(path);
          },
        })
      );
    }
    const err = el("small", { class: "field-error", "data-error": path });
    if (item.enum) return el("div", { class: "field", "data-object": path }, words(label), box, err);
    const others = (getAt(path) || []).filter((v) => !known.includes(v));
    const input = el("input", {
      "data-path": path,
      "data-list": "yes",
      placeholder: "separated by commas",
      autocomplete: "off",
    });
    input.value = others.join(", ");
    input.addEventListener("input", () => {
      const kept = (getAt(path) || []).filter((v) => known.includes(v));
      const more = input.value.split(",").map((v) => typed(item, v.trim())).filter((v) => v !== "" && v !== null);
      setAt(path, kept.concat(more));
      changed(path);
    });
    return el("div", { class: "field", "data-object": path }, words(label), box, input, err);
  }

  // a member of another side than the one taken here: shown in the forces, not in the form
  // (and the other side's entry in the setup's list of sides: a Necromunda gang)
  const theirs = (path, entry) => {
    if (!mine || !entry) return false;
    if (path === form.sides_field) return (typeof entry === "object" ? entry.id : entry) !== mine.side;
    return form.members.includes(path) && !!entry[form.side_field] && entry[form.side_field] !== mine.side;
  };

  function list(s, path, label) {
    const item = plain(s.items || {});
    if (scalar(item)) return chips(s, item, path, label);
    const box = el("fieldset", { class: "list", "data-list": path }, el("legend", { text: words(label) }));
    (getAt(path) || []).forEach((member, i) => {
      if (theirs(path, member)) return;
      const at = `${path}[${i}]`;
      const entry = node(item, at, `${words(label)} ${i + 1}`);
      entry.append(
        el("button", {
          type: "button",
          class: "btn quiet copy",
          "data-copy": at,
          text: "copy",
          onclick: () => {
            // another like this one (a gang's second Brute): then change what differs; the
            // folds open on the one copied are open on the copy (the same fields to change)
            const made = `${path}[${getAt(path).length}]`;
            for (const d of formBox.querySelectorAll("details[open]")) {
              const where = d.parentElement.dataset.object || "";
              if (where === at || where.startsWith(at + ".") || where.startsWith(at + "[")) opened.add(made + where.slice(at.length));
            }
            getAt(path).push(copy(getAt(at)));
            draw();
            changed(`${path}[${getAt(path).length - 1}]`);
          },
        }),
        el("button", {
          type: "button",
          class: "btn quiet remove",
          "data-remove": at,
          text: "remove",
          onclick: () => {
            getAt(path).splice(i, 1);
            draw();
            changed(path);
          },
        })
      );
      box.append(entry);
    });
    const add = (value) => {
      const list = getAt(path) || [];
      const entry = Object.assign(blank(item), copy(value) || {});
      if (mine && form.members.includes(path)) entry[form.side_field] = mine.side; // its side: this phone's
      list.push(entry);
      setAt(path, list);
      draw();
      changed(`${path}[${list.length - 1}]`);
    };
    const row = el("div", { class: "adds" });
    for (const choice of form.choices[pattern(path) + "[]"] || []) {
      row.append(el("button", { type: "button", class: "btn add", "data-add": path, "data-choice": choice.label, text: `+ ${choice.label}`, onclick: () => add(choice.value) }));
    }
    row.append(el("button", { type: "button", class: "btn add", "data-add": path, text: "+ add", onclick: () => add(null) }));
    box.append(row, el("small", { class: "field-error", "data-error": path }));
    return box;
  }

  function node(schema, path, label) {
    const s = plain(schema);
    if (s.nullable && !scalar(s) && s.type !== "array") {
      const on = getAt(path) != null;
      const toggle = el("input", { type: "checkbox", "data-toggle": path });
      toggle.checked = on;
      toggle.addEventListener("change", () => {
        setAt(path, toggle.checked ? blank(Object.assign({}, s, { nullable: false })) : null);
        draw();
        changed(path);
      });
      const box = el("div", { class: "optional" }, el("label", { class: "check" }, toggle, ` ${words(label)}`));
      if (on) box.append(node(Object.assign({}, s, { nullable: false }), path, label));
      return box;
    }
    if (s.type === "array" && s.prefixItems) {
      // a pair or a tuple: one input per place
      const box = el("fieldset", { class: "object tuple", "data-object": path, "data-tuple": "yes" }, el("legend", { text: label }));
      s.prefixItems.forEach((sub, k) => box.append(scalarInput(plain(sub), `${path}[${k}]`, String(k + 1))));
      return box;
    }
    if (s.type === "array") return list(s, path, label);
    if (scalar(s)) return scalarInput(s, path, label);
    if (s.type === "object" && s.properties) {
      const box = el("fieldset", { class: "object", "data-object": path }, el("legend", { text: label }));
      const more = el("details", { class: "more" }, el("summary", { text: "more (defaults)" }));
      for (const [key, sub] of Object.entries(s.properties)) {
        const at = path ? `${path}.${key}` : key;
        const part = node(sub, at, key);
        const given = (s.required || []).includes(key);
        const away = !given && JSON.stringify(getAt(at)) === JSON.stringify(resolve(sub).default);
        (away ? more : box).append(part);
      }
      if (more.children.length > 1) box.append(more);
      return box;
    }
    // a table of free keys (a dict): its JSON
    const input = el("textarea", { "data-path": path, "data-json": "yes", rows: "2" });
    input.value = JSON.stringify(getAt(path) || {});
    input.addEventListener("input", () => {
      try {
        setAt(path, JSON.parse(input.value || "{}"));
      } catch (e) {
        setAt(path, input.value);
      }
      changed(path);
    });
    return el("label", { class: "field" }, words(label), input, el("small", { class: "field-error", "data-error": path }));
  }

  const opened = new Set(); // folds to open at the next draw (a copy's)
  function draw() {
    const open = [...formBox.querySelectorAll("details[open]")].map((d) => d.parentElement.dataset.object);
    formBox.replaceChildren(node(form.schema, "", form.ruleset));
    for (const d of formBox.querySelectorAll("details")) {
      const where = d.parentElement.dataset.object;
      if (open.includes(where) || opened.has(where)) d.open = true;
    }
    opened.clear();
  }

  async function check(path) {
    const { data: found } = await bxb.api("POST", `/api/rulesets/${form.ruleset}/setup/check`, {
      setup: data,
      field: path,
    });
    for (const e of formBox.querySelectorAll(`[data-error]`)) {
      if (e.dataset.error === path || e.dataset.error === found.field) e.textContent = "";
    }
    const mine = formBox.querySelector(`[data-error="${CSS.escape(path)}"]`);
    if (mine) mine.textContent = found.field_message;
    const there = formBox.querySelector(`[data-error="${CSS.escape(found.field)}"]`);
    if (there && found.message) there.textContent = found.message;
    $("setup-problem").textContent = found.ok ? "" : found.message;
    formBox.dataset.checked = String(Number(formBox.dataset.checked || 0) + 1);
  }

  async function load(ruleset, setup) {
    if (!form || form.ruleset !== ruleset) form = (await bxb.api("GET", `/api/rulesets/${ruleset}/form`)).data;
    data = setup ? copy(setup) : blank(form.schema);
    if (mine) ownSide(mine.side);
    $("setup-ruleset").value = ruleset;
    draw();
    drawRulings();
    body.dataset.form = ruleset;
  }

  // --- the side this phone enters ---------------------------------------------------------------

  // the side's entry in the setup's list of sides (a Necromunda gang), made if it has none
  function ownSide(side) {
    const field = form.sides_field;
    if (!field || !form.schema) return;
    const top = resolve(form.schema);
    const item = plain(plain((top.properties || {})[field] || {}).items || {});
    const listed = data[field] || [];
    const id = (e) => (e && typeof e === "object" ? e.id : e);
    if (listed.some((e) => id(e) === side)) return;
    listed.push(item.type === "object" ? Object.assign(blank(item), { id: side }) : side);
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
      draw();
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
      const found = (await bxb.api("POST", `${base}/confirm`, req)).data;
      pending = found;
      showPending();
      started(found);
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
      pending = (await bxb.api("PUT", base, draft)).data;
      dirty = terms = false;
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

  // The other phone's saves, takes and confirmations: heard on the table's live stream.
  async function refresh() {
    const found = (await bxb.api("GET", base)).data;
    // gone once the battle has started (the other phone's confirmation, or a judge)
    if (!found.draft && pending.draft) found.battle = found.battle || true;
    started(found);
    const was = pending.draft ? pending.draft.revision : 0;
    const now = found.draft ? found.draft.revision : 0;
    pending = found;
    if (now !== was && found.draft) {
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
      pending = (await bxb.api("POST", `${base}/rosters`, {
        rosters: picked.map((k) => ({ player: k.player, name: k.name })),
        only,
        revision: pending.draft ? pending.draft.revision : 0,
      })).data;
      dirty = false;
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
