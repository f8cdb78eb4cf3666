// Quick odds (web/quick_odds.py): a game system's setup drawn by the setup forms' engine
// (forms.js), its demo's fighters to change; the commands the rules allow at its start; the odds
// of the one picked: each side's net loss, each tally's mean, spread and "at least k" per side.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const api = (ruleset, tail) => `/api/rulesets/${ruleset}/quick${tail}`;
  let ruleset = "";
  let rulings = {};
  let offered = [];
  let engine = null;
  let timer = null;
  // A ticket per asking (bxb.asking): an answer is shown only while it is its kind's latest
  // asking, no other game was picked since and the form it was asked of is still the one drawn
  // (a slow answer for the game shown first, a check of an older setup, the odds of an earlier
  // press, or of the last game's command pressed while the next game loads, cannot overwrite
  // what was asked or drawn after them).
  const games = bxb.asking();
  const drawn = bxb.asking(); // a ticket each time a game's form is drawn
  const offers = bxb.asking(); // the commands the rules allow
  const presses = bxb.asking(); // the odds

  const percent = (x) => `${(100 * x).toFixed(1)}%`;
  const estimate = (p) => p.exact !== null
    ? `${percent(p.value)} <span class="muted">(${bxb.esc(p.exact)})</span>`
    : `${percent(p.value)} <span class="muted">[${percent(p.low)}–${percent(p.high)}]</span>`;
  const number = (p) => p.value.toFixed(2);
  const rows = (shares, head) =>
    `<table class="odds-table"><thead><tr><th>${bxb.esc(head)}</th><th>probability</th></tr></thead><tbody>` +
    shares.map((s) => `<tr><th scope="row">${bxb.esc(s.value)}</th><td>${estimate(s.p)}</td></tr>`).join("") +
    `</tbody></table>`;

  function commandLabel(o) {
    const fixed = Object.entries(o.fields || {}).map(([k, v]) => `${k}=${v}`).join(" ");
    return `${o.type}${o.actor ? ` · ${o.actor}` : ""}${o.side ? ` (${o.side})` : ""}${fixed ? ` · ${fixed}` : ""}`;
  }

  function showOptions() {
    const select = $("quick-command");
    const before = select.value;
    select.replaceChildren(...offered.map((o, i) => new Option(o.summary || commandLabel(o), String(i))));
    if (before && Number(before) < offered.length) select.value = before;
    showPicks();
  }

  function showPicks() {
    const box = $("quick-picks");
    const o = offered[Number($("quick-command").value)];
    box.replaceChildren();
    if (!o) return;
    for (const [field, values] of Object.entries(o.options || {})) {
      const pick = document.createElement("select");
      pick.dataset.pick = field;
      values.forEach((v) => pick.append(new Option(v, v)));
      const label = document.createElement("label");
      label.append(`${field.replace(/_/g, " ")} `, pick);
      box.append(label);
    }
  }

  // The setup changed: the commands the rules allow at its start, again (after a pause in typing).
  function changed() {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const ticket = offers.ask(games, drawn);
      try {
        const answer = (await bxb.api("POST", api(ruleset, "/options"), { setup: engine.data, rulings })).data;
        if (!ticket.latest()) return;
        offered = answer;
        $("quick-problem").textContent = "";
        showOptions();
      } catch (error) {
        if (ticket.latest()) $("quick-problem").textContent = error.message;
      }
    }, 400);
  }

  async function load(id) {
    const ticket = games.ask();
    clearTimeout(timer);
    let start;
    try {
      start = (await bxb.api("GET", api(id, ""))).data;
    } catch (error) {
      if (ticket.latest()) $("quick-problem").textContent = error.message;
      return;
    }
    if (!ticket.latest()) return;
    drawn.ask();
    ruleset = id;
    rulings = start.rulings;
    offered = start.options;
    engine = bxbForms.make($("quick-form"), start.form, start.setup, changed);
    engine.draw();
    showOptions();
    $("quick-result").innerHTML = `<p class="muted">Pick a command and work out its odds.</p>`;
    document.body.dataset.form = id;
  }

  function result(o) {
    const method = o.method === "exact"
      ? `exact: ${o.runs} runs of the rules, ${o.outcomes} distinct outcomes`
      : `Monte Carlo: ${o.samples} samples (seed ${bxb.esc(o.seed)}), 95% intervals`;
    const sides = o.sides.map((s) =>
      `<div class="quick-side"><h3>${bxb.esc(s.side)}</h3><p>expected net loss ${number(s.expected_net_loss)}` +
      ` (its loss less the others')</p>${rows(s.net_loss, "net loss")}</div>`).join("");
    const tally = (t) => `<tr><th scope="row">${bxb.esc(t.side || "in all")}</th><td>${number(t.expected)}</td>` +
      `<td>${t.spread.toFixed(2)}</td><td>${t.at_least.map((k) => `≥${bxb.esc(k.value)}: ${percent(k.p.value)}`).join(" · ")}</td></tr>`;
    const tallies = o.tallies.map((t) =>
      `<div class="quick-tally" data-tally="${bxb.esc(t.name)}"><h4>${bxb.esc(t.name)}</h4>` +
      `<table class="odds-table"><thead><tr><th>whose</th><th>mean</th><th>spread</th><th>at least k</th></tr></thead>` +
      `<tbody>${[t, ...t.by_side].map(tally).join("")}</tbody></table></div>`).join("");
    const units = o.units.filter((u) => u.status.length > 1 || u.status[0].value !== u.status_before).map((u) =>
      `<div class="odds-unit"><h4>${bxb.esc(u.name)} <span class="muted">(${bxb.esc(u.side)}, was ${bxb.esc(u.status_before)})</span></h4>` +
      rows(u.status, "status after") + `</div>`).join("");
    return `<p class="odds-method" id="quick-method">Command: ${bxb.esc(o.action)}; ${method}.</p>` +
      `<h3>Each side</h3>${sides}<h3>Tallies: mean, spread, at least k</h3>${tallies}` +
      (units ? `<h3>Status after</h3>${units}` : "");
  }

  $("quick-ruleset").addEventListener("change", () => load($("quick-ruleset").value));
  $("quick-command").addEventListener("change", showPicks);
  $("quick-run").addEventListener("click", async () => {
    const picks = {};
    $("quick-picks").querySelectorAll("[data-pick]").forEach((s) => { picks[s.dataset.pick] = s.value; });
    $("quick-error").textContent = "";
    $("quick-result").innerHTML = `<p class="muted">working out the odds…</p>`;
    const ticket = presses.ask(games, drawn);
    try {
      const { data } = await bxb.api("POST", api(ruleset, "/odds"), {
        setup: engine.data, rulings, option: Number($("quick-command").value), picks,
      });
      if (ticket.latest()) $("quick-result").innerHTML = result(data);
    } catch (error) {
      if (!ticket.latest()) return;
      $("quick-result").replaceChildren();
      $("quick-error").textContent = error.message;
    }
  });
  load($("quick-ruleset").value);
})();
