// The setup forms' engine: a game system's setup drawn from its setup's JSON Schema (GET
// /api/rulesets/ID/form), one engine for every system, nothing written per field. The table's
// setup page (setup.js) and the quick odds page (quick_odds.js) draw their forms with it.
// Hand-written (no framework): a form engine of a few hundred lines.
"use strict";
const bxbForms = {
  // A form in `box` for `form` (the system's SetupForm), editing `data` in place; `changed(path)`
  // after each edit; `mine()`: the side this phone entered ({side}), whose members alone it shows
  // and adds (null: every side's).
  make(box, form, data, changed, mine = () => null) {
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
    const copy = bxbForms.copy;
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

    const el = bxbForms.el;
    const words = (key) => key.replace(/_/g, " ");


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
      const taken = mine();
      if (!taken || !entry) return false;
      if (path === form.sides_field) return (typeof entry === "object" ? entry.id : entry) !== taken.side;
      return form.members.includes(path) && !!entry[form.side_field] && entry[form.side_field] !== taken.side;
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
              for (const d of box.querySelectorAll("details[open]")) {
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
        if (mine() && form.members.includes(path)) entry[form.side_field] = mine().side; // its side: this phone's
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
      const open = [...box.querySelectorAll("details[open]")].map((d) => d.parentElement.dataset.object);
      box.replaceChildren(node(form.schema, "", form.ruleset));
      for (const d of box.querySelectorAll("details")) {
        const where = d.parentElement.dataset.object;
        if (open.includes(where) || opened.has(where)) d.open = true;
      }
      opened.clear();
    }

    return {
      draw,
      blank,
      plain,
      resolve,
      get data() {
        return data;
      },
      set data(value) {
        data = value;
      },
    };
  },
  copy: (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v))),
  el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v);
    }
    for (const kid of kids) if (kid) e.append(kid);
    return e;
  },
};
