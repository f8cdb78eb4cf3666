// The judge's viewer, its part of a dispute (templates/_disputes_viewer.html; docs/judging.md,
// Disputes). viewer.js steps through the battle; this steps by command (through the slider, so
// viewer.js does the rest), shows each flag, ruling and note on the event it is about, lists the
// battle's family (forks and saved what-ifs) with a diff of any two, and lets a judge note the
// event shown and rule on its command: it stands, or the battle is rewound (a fork) with a
// corrected die or choice, a command voided, another ruling, or nothing changed; previewed first.
"use strict";
(() => {
  const body = document.body;
  const battle = body.dataset.battle;
  const $ = (id) => document.getElementById(id);
  if (!battle || !$("by-command")) return;
  let step = null; // where the position shown stands among the commands (GET step)
  let shown = null; // the event at the position shown (GET at), for the correction's key
  const places = bxb.asking(); // where the position shown stands: the last position's answer is shown

  const position = () => Number(body.dataset.position);
  const go = (target) => { // through the slider: viewer.js steps, fetches rows and the state
    const slider = $("slider");
    slider.value = target;
    slider.dispatchEvent(new Event("input"));
  };
  const fill = (cls, text) => document.querySelectorAll(`.${cls}`).forEach((el) => { el.textContent = text; });

  // --- step by command ----------------------------------------------------------------------
  async function where() {
    const ticket = places.ask();
    const at = position();
    try {
      const [{ data: s }, { data: e }] = await Promise.all([
        bxb.api("GET", `/api/battles/${battle}/step?position=${at}`),
        bxb.api("GET", `/api/battles/${battle}/at/${at}`),
      ]);
      if (!ticket.latest()) return;
      step = s;
      shown = e.event;
    } catch (error) {
      if (ticket.latest()) $("cmd-where").textContent = error.message;
      return;
    }
    $("cmd-where").textContent = step.command
      ? `Position ${step.position} is in command ${step.command}, issued at position ${step.issued}.`
      : `Position ${step.position} is before the first command.`;
    $("cmd-prev").disabled = step.previous === null;
    $("cmd-next").disabled = step.next === null;
    fill("at-pos", String(step.position));
    fill("at-cmd", String(step.command || "—"));
    fill("at-before", String(Math.max(1, step.issued - 1)));
    prefill();
    body.dataset.stepped = String(Number(body.dataset.stepped || 0) + 1); // what a test waits on
  }
  new MutationObserver(where).observe(body, { attributes: true, attributeFilter: ["data-position"] });
  $("cmd-prev").addEventListener("click", () => { if (step && step.previous !== null) go(step.previous); });
  $("cmd-next").addEventListener("click", () => { if (step && step.next !== null) go(step.next); });
  const sought = bxb.asking(); // the command asked for last: an earlier one answered after it is not gone to
  $("cmd-go").addEventListener("click", async () => {
    const ticket = sought.ask();
    try {
      const { data } = await bxb.api("GET", `/api/battles/${battle}/step?command=${Number($("cmd-number").value)}`);
      if (ticket.latest()) go(data.position);
    } catch (error) {
      if (ticket.latest()) $("cmd-where").textContent = error.message;
    }
  });

  // --- flags, rulings and notes, on the event each is about ---------------------------------
  let said = new Map(); // the event's position -> what was said about it
  // Asked again at each note: the answer to the last asking is shown, an earlier one answered
  // after it (without what was just said) is dropped.
  const sayings = bxb.asking();
  const families = bxb.asking();
  function decorate(row) {
    row.querySelectorAll(".about").forEach((el) => el.remove());
    for (const a of said.get(Number(row.dataset.position)) || []) {
      row.insertAdjacentHTML("beforeend",
        `<a class="about about-${bxb.esc(a.type)}" href="/battles/${battle}/at/${a.position}">${bxb.esc(a.text)}</a>`);
    }
  }
  async function annotations() {
    const ticket = sayings.ask();
    try {
      const { data } = await bxb.api("GET", `/api/battles/${battle}/annotations`);
      if (!ticket.latest()) return;
      said = new Map();
      for (const a of data) said.set(a.about, [...(said.get(a.about) || []), a]);
      document.querySelectorAll("#events .ev").forEach(decorate);
    } catch (error) { /* shown again at the next note */ }
  }
  new MutationObserver((changes) => { // rows fetched as the log scrolls, or written live
    let spoken = false;
    for (const change of changes) {
      for (const node of change.addedNodes) {
        if (!(node instanceof HTMLElement) || !node.classList.contains("ev")) continue;
        decorate(node);
        if (/ev-(CommandFlagged|RulingGiven|NoteAdded|BattleForked)/.test(node.className)) spoken = true;
      }
    }
    if (spoken) { annotations(); family(); }
  }).observe($("events"), { childList: true });

  // --- the family: forks and re-runs, a diff of any two -------------------------------------
  async function family() {
    let data;
    const ticket = families.ask();
    try {
      ({ data } = await bxb.api("GET", `/api/battles/${battle}/family`));
    } catch (error) {
      if (ticket.latest()) $("family").textContent = error.message;
      return;
    }
    if (!ticket.latest()) return;
    $("family").innerHTML = data.members.map((m) =>
      `<li class="depth-${Math.min(m.depth, 3)}${m.battle === battle ? " here" : ""}" data-battle="${m.battle}">` +
      `<a href="/battles/${m.battle}">${bxb.esc(m.label)}</a> <span class="muted">${m.battle.slice(0, 8)} · ${m.version} events</span>` +
      (m.superseded_by ? ` <span class="badge s-finished">superseded</span>` : "") +
      (m.battle === data.goes_on_in && data.members.length > 1 ? ` <span class="badge s-playing">the table plays here</span>` : "") +
      (m.battle === battle ? "" : ` <button type="button" class="btn quiet family-diff" data-other="${m.battle}">diff with this</button>`) +
      `<span class="how">${bxb.esc(m.how)}</span></li>`).join("");
    const me = data.members.find((m) => m.battle === battle);
    const box = $("superseded");
    box.hidden = !(me && me.superseded_by);
    if (me && me.superseded_by) {
      box.innerHTML = `<strong>Superseded:</strong> a judge forked this battle; the table goes on in ` +
        `<a id="superseded-by" href="/battles/${data.goes_on_in}">battle ${data.goes_on_in.slice(0, 8)}</a>. ` +
        `This one stays as it was, for the record.`;
    }
  }
  $("family").addEventListener("click", (event) => {
    const button = event.target.closest(".family-diff");
    if (!button || !$("diff-other")) return;
    $("diff-other").value = button.dataset.other;
    $("diff-form").requestSubmit();
    $("diff-box").scrollIntoView({ block: "start" });
  });

  // --- a judge's note, ruling and fork ------------------------------------------------------
  const rule = $("rule-form");
  function decision() {
    return rule.querySelector("input[name=decision]:checked").value;
  }
  function prefill() { // a die or a choice shown: the correction names it
    if (!rule || !shown) return;
    const e = shown.event || {};
    if (shown.type === "DiceRolled") {
      $("die-key").value = e.key;
      $("die-values").placeholder = `it showed ${e.values.join(" ")} (d${e.sides})`;
    } else if (shown.type === "ChoiceMade") {
      $("choice-key").value = e.key;
      $("choice-answer").placeholder = `answered ${e.answer}: one of ${e.options.join(", ")}`;
    }
    if (step && step.command) $("void-command").value = step.command;
  }
  function showChange() {
    const kind = decision();
    for (const name of ["die", "choice", "void", "ruling"]) $(`change-${name}`).hidden = kind !== name;
    const forks = kind !== "stands";
    $("rewind-to").hidden = !forks;
    $("fork-preview").hidden = !forks;
    $("rule-send").textContent = forks ? "Fork: the table goes on in a new battle" : "Record the ruling";
  }
  function rulingValues() {
    const option = $("ruling-name").selectedOptions[0];
    if (!option) return;
    $("ruling-value").innerHTML = option.dataset.choices.split("|").map((c) =>
      `<option${c === option.dataset.now ? " selected" : ""}>${bxb.esc(c)}</option>`).join("");
  }
  function change() {
    const kind = decision();
    if (kind === "die") {
      const values = $("die-values").value.split(/[\s,]+/).filter(Boolean).map(Number);
      return { kind, key: $("die-key").value.trim(), values };
    }
    if (kind === "choice") return { kind, key: $("choice-key").value.trim(), answer: $("choice-answer").value.trim() };
    if (kind === "void") return { kind, command: Number($("void-command").value) };
    if (kind === "ruling") return { kind, name: $("ruling-name").value, value: $("ruling-value").value };
    return { kind: "rewind" };
  }
  function forked(data) {
    const rows = data.rows.map((r) =>
      `<li class="ev ev-${bxb.esc(r.type)}"><span class="pos">${r.position}</span><span class="text">${bxb.esc(r.text)}</span></li>`).join("");
    const what = data.written
      ? `<p class="ok" id="fork-done">Forked: the table goes on in <a id="fork-child" href="/battles/${data.child}">battle ${data.child.slice(0, 8)}</a>` +
        (data.place ? ` (table ${data.place.table})` : "") + `. This battle is kept as it was, superseded.</p>`
      : `<p id="fork-seen">Preview (nothing written) of the fork at position ${data.position} (${bxb.esc(data.change)}):</p>`;
    return what +
      `<p>${data.kept} command(s) kept as played, ${data.replayed} played again under the change` +
      (data.stopped ? `; then the table takes over: <span class="stopped">${bxb.esc(data.stopped)}</span>` : "; nothing left to play again") + `.</p>` +
      (rows ? `<ol class="log">${rows}</ol>` : "") +
      `<h3>The child's state at its end</h3><pre>${bxb.esc(data.state)}</pre>`;
  }
  const decided = bxb.asking(); // the ruling, preview or fork sent last: an earlier preview answered after it is dropped
  async function send(preview) {
    const ticket = decided.ask();
    $("rule-error").textContent = "";
    const reason = $("rule-reason").value;
    try {
      if (decision() === "stands") {
        await bxb.api("POST", `/api/battles/${battle}/rulings`, { command: step.command, reason });
        $("rule-result").innerHTML = `<p class="ok" id="ruled">Ruled: command ${step.command} stands.</p>`;
        return;
      }
      const request = { change: change(), reason, preview };
      if (rule.querySelector("input[name=to]:checked").value === "here") request.position = step.position;
      else request.before = step.command;
      const { data } = await bxb.api("POST", `/api/battles/${battle}/fork`, request);
      if (data.written) family();
      else if (!ticket.latest()) return; // a preview: what is written (or asked) since stands
      $("rule-result").innerHTML = forked(data);
    } catch (error) {
      if (ticket.latest()) $("rule-error").textContent = error.message;
    }
  }
  if (rule) {
    rule.querySelectorAll("input[name=decision]").forEach((r) => r.addEventListener("change", showChange));
    $("ruling-name").addEventListener("change", rulingValues);
    rulingValues();
    showChange();
    $("fork-preview").addEventListener("click", () => send(true));
    rule.addEventListener("submit", (event) => { event.preventDefault(); send(false); });
    $("note-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        await bxb.api("POST", `/api/battles/${battle}/notes`, { position: step.position, text: $("note-text").value });
        $("note-result").textContent = `noted on event ${step.position}`;
        $("note-text").value = "";
      } catch (error) {
        $("note-result").textContent = error.message;
      }
    });
  }

  // Asked once the page is on screen: its first paint waits for none of them (bxb.afterPaint).
  bxb.afterPaint(() => {
    where();
    annotations();
    family();
  });
})();
