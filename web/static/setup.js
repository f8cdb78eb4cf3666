// The setup form of any game system, drawn from its setup's JSON Schema (GET
// /api/rulesets/ID/form): one engine for every system, nothing written per field. Each field
// is checked as it is typed by the server, with the command line's own words (POST
// .../setup/check); the setup is saved whole (PUT .../setup) and each side confirms the revision
// it saw. Hand-written (no framework): a form engine of a few hundred lines.
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

  function list(s, path, label) {
    const item = plain(s.items || {});
    if (scalar(item)) return chips(s, item, path, label);
    const box = el("fieldset", { class: "list", "data-list": path }, el("legend", { text: words(label) }));
    (getAt(path) || []).forEach((_, i) => {
      const at = `${path}[${i}]`;
      const entry = node(item, at, `${words(label)} ${i + 1}`);
      entry.append(
        el("button", {
          type: "button",
          class: "btn quiet copy",
          "data-copy": at,
          text: "copy",
          onclick: () => {
            // another like this one (a gang's second Brute): then change what differs
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
      list.push(Object.assign(blank(item), copy(value) || {}));
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

  function draw() {
    const open = [...formBox.querySelectorAll("details[open]")].map((d) => d.parentElement.dataset.object);
    formBox.replaceChildren(node(form.schema, "", form.ruleset));
    for (const d of formBox.querySelectorAll("details")) {
      if (open.includes(d.parentElement.dataset.object)) d.open = true;
    }
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
    form = (await bxb.api("GET", `/api/rulesets/${ruleset}/form`)).data;
    data = setup ? copy(setup) : blank(form.schema);
    $("setup-ruleset").value = ruleset;
    draw();
    body.dataset.form = ruleset;
  }

  function showPending() {
    const draft = pending.draft;
    $("setup-revision").textContent = draft ? `revision ${draft.revision}` : "nothing saved yet";
    body.dataset.revision = draft ? String(draft.revision) : "0";
    const forces = $("forces");
    forces.replaceChildren();
    for (const force of pending.forces || []) {
      const units = el("ul", { class: "units" });
      for (const u of force.units) {
        const stats = u.stats.map((s) => `${s.name} ${s.value}`).join(" · ");
        units.append(el("li", { text: `${u.name} (${u.id}) ${u.status}${stats ? " · " + stats : ""}` }));
      }
      forces.append(el("div", { class: "force", "data-side": force.side }, el("h3", { text: force.side }), units));
    }
    $("setup-waiting").textContent = pending.problem
      ? `Not ready yet: ${pending.problem}`
      : draft ? `Confirmed: ${(pending.confirmed || []).join(", ") || "nobody yet"}` : "";
    const confirms = $("confirms");
    confirms.replaceChildren();
    if (draft && !pending.problem) {
      for (const side of pending.sides) {
        const done = (pending.confirmed || []).includes(side);
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
      const found = (await bxb.api("POST", `${base}/confirm`, { side, revision: pending.draft.revision })).data;
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
      if (pending.draft) Object.assign(draft, { round: pending.draft.round, rulings: pending.draft.rulings, seed: pending.draft.seed });
      pending = (await bxb.api("PUT", base, draft)).data;
      dirty = false;
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

  // The other phone's saves and confirmations: looked for every second and a half.
  setInterval(async () => {
    const found = (await bxb.api("GET", base)).data;
    // gone once the battle has started (the other phone's confirmation, or a judge)
    if (!found.draft && pending.draft) found.battle = found.battle || true;
    started(found);
    const was = pending.draft ? pending.draft.revision : 0;
    const now = found.draft ? found.draft.revision : 0;
    if (now !== was || JSON.stringify(found.confirmed) !== JSON.stringify(pending.confirmed)) {
      pending = found;
      showPending();
      if (now !== was && !dirty && found.draft) await load(found.draft.ruleset, found.draft.setup);
    }
  }, 1500);

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
      showPending();
      await load(pending.draft.ruleset, pending.draft.setup);
    } catch (e) {
      $("roster-error").textContent = e.message;
    }
  });
  loadRosters();

  showPending();
  const draft = pending.draft;
  load(draft ? draft.ruleset : $("setup-ruleset").value, draft ? draft.setup : null);
})();
