// The judge's viewer: step through a battle with the slider or the arrow keys (each position
// has its own URL), verify it, run a what-if, diff it with another battle, seal and export;
// beside each command, its odds as bars (GET /api/battles/ID/odds).
"use strict";
(() => {
  const body = document.body;
  const battle = body.dataset.battle;
  let position = Number(body.dataset.position);
  let of = Number(body.dataset.of);
  const $ = (id) => document.getElementById(id);
  const slider = $("slider");
  let reloading = false;
  const reload = () => {
    if (!reloading) {
      reloading = true;
      location.reload();
    }
  };
  const states = bxb.asking(); // the latest state asked for: older answers are dropped
  let divergent = 0; // the position verify found wrong (0: none)

  function mark(follow) {
    document.querySelectorAll("#events .ev").forEach((row) => {
      const p = Number(row.dataset.position);
      row.classList.toggle("current", p === position);
      row.classList.toggle("later", p > position);
      row.classList.toggle("divergent", p === divergent);
    });
    // Keep the current event in sight inside the list, without scrolling the page itself.
    const current = $(`ev-${position}`);
    if (current && follow !== false) {
      const top = current.offsetTop;
      if (top < list.scrollTop || top + current.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = Math.max(0, top - list.clientHeight / 3);
      }
    }
  }

  // --- the log, a window of it at a time (web/window.py) ------------------------------------
  // The page holds the rows around its position (a few before it, a few more after); a hundred
  // rows before and after them are fetched once it is shown, the rows past either end as the
  // list is scrolled near it, and a step outside the rows held fetches the rows around it.
  const list = $("events");
  const WINDOW = 100; // rows fetched at a time
  const NEAR = 400; // pixels from an end of the list that fetch the rows past it
  let queue = Promise.resolve(); // the list changes one fetch at a time, in order
  const serial = (work) => (queue = queue.then(work, work));
  const held = () => {
    const rows = list.querySelectorAll(":scope > .ev");
    return rows.length
      ? [Number(rows[0].dataset.position), Number(rows[rows.length - 1].dataset.position)]
      : [0, 0];
  };
  async function rowsAfter(after, upto) { // upto: the battle's end when left out
    const query = upto === undefined ? "" : `?upto=${upto}`;
    const response = await fetch(`/battles/${battle}/rows/${after}${query}`, { credentials: "same-origin" });
    return response.ok ? response.text() : null;
  }
  const added = () => mark(false);
  const earlier = () => serial(async () => {
    const [first] = held();
    if (first <= 1) return;
    const html = await rowsAfter(Math.max(0, first - 1 - WINDOW), first - 1);
    if (html === null || held()[0] !== first) return;
    const height = list.scrollHeight;
    list.insertAdjacentHTML("afterbegin", html);
    list.scrollTop += list.scrollHeight - height; // the rows in sight stay where they were
    added();
  });
  const later = () => serial(async () => {
    const [, last] = held();
    if (last >= of) return;
    const html = await rowsAfter(last, Math.min(of, last + WINDOW));
    if (html === null || held()[1] !== last) return;
    list.insertAdjacentHTML("beforeend", html);
    added();
  });
  const around = (target, ticket) => serial(async () => {
    const [first, last] = held();
    if (first <= target && target <= last) return;
    const html = await rowsAfter(Math.max(0, target - 1 - WINDOW), Math.min(of, target + WINDOW));
    if (html === null || !ticket.latest()) return;
    list.innerHTML = html;
    added();
  });
  list.addEventListener("scroll", () => {
    if (list.scrollTop < NEAR) earlier();
    if (list.scrollHeight - list.scrollTop - list.clientHeight < NEAR) later();
  });

  async function go(target) {
    position = Math.max(1, Math.min(of, target));
    slider.value = position;
    $("pos").textContent = position;
    body.dataset.position = position;
    const url = `/battles/${battle}/at/${position}`;
    history.replaceState(null, "", url);
    $("permalink").href = url;
    const ticket = states.ask();
    const rows = around(position, ticket);
    mark();
    const response = await fetch(`${url}/state`, { credentials: "same-origin" });
    await rows;
    const html = response.ok ? await response.text() : null; // its body may come later still
    if (!ticket.latest()) return;
    mark();
    if (html !== null) $("state-panel").outerHTML = html;
  }

  slider.addEventListener("input", () => go(Number(slider.value)));
  $("prev").addEventListener("click", () => go(position - 1));
  $("next").addEventListener("click", () => go(position + 1));
  document.addEventListener("keydown", (event) => {
    const tag = (event.target.tagName || "").toLowerCase();
    if ((tag === "input" && event.target !== slider) || tag === "select" || tag === "textarea") return;
    const moves = { ArrowLeft: -1, ArrowRight: 1 };
    if (event.key in moves) {
      event.preventDefault();
      go(position + moves[event.key]);
    } else if (event.key === "Home") {
      go(1);
    } else if (event.key === "End") {
      go(of);
    }
  });
  $("events").addEventListener("click", (event) => {
    const button = event.target.closest(".odds-btn");
    if (button) {
      showOdds(button);
      return;
    }
    if (event.target.closest(".odds")) return; // reading the chart is not stepping
    const row = event.target.closest(".ev");
    if (row) go(Number(row.dataset.position));
  });

  // --- odds beside each command (its button in the row's HTML: templates/_rows.html) ---------

  // the first answer's samples, drawn at once by a worker of their own (the odds desk's `ahead`)
  const FIRST_SAMPLES = 200;
  // The first answer is asked only when the full one is not back this long after the tap: 17 of
  // the 22 demo commands' full answers take 1-36 ms of a worker, so they ask nothing more; a
  // sampled command's first answer (56-82 ms of a worker) is then on screen some 50 ms later
  // than if asked at once, well within the 300 ms a tap may take (docs/odds.md, eleventh sitting).
  const FIRST_AFTER = 50; // ms
  const percent = (x) => `${(100 * x).toFixed(1)}%`;
  // A probability as the API gives it: exact (with its fraction) or Monte Carlo (its interval).
  const estimate = (p) => p.exact !== null
    ? `${percent(p.value)} <span class="muted">(${bxb.esc(p.exact)})</span>`
    : `${percent(p.value)} <span class="muted">[${percent(p.low)}–${percent(p.high)}]</span>`;
  // One outcome and its probability, a row of the table beside the plot.
  const row = (label, p, cls = "") =>
    `<tr class="${cls}"><th scope="row">${bxb.esc(label)}</th><td>${estimate(p)}</td></tr>`;
  const table = (rows) => `<table class="odds-table"><tbody>${rows}</tbody></table>`;

  function oddsChart(o, coming = "") {
    const method = o.method === "exact"
      ? `exact: ${o.runs} runs of the rules, ${o.outcomes} distinct outcomes`
      : `Monte Carlo: ${o.samples} samples (seed ${bxb.esc(o.seed)}), ${Math.round(100 * o.confidence)}% intervals` +
        (o.note ? ` · ${bxb.esc(o.note)}` : "") + (coming ? ` · <span class="odds-coming">${coming}</span>` : "");
    const units = o.units.map((u) =>
      `<div class="odds-unit"><h4>${bxb.esc(u.name)} <span class="muted">(${bxb.esc(u.side)}, was ${bxb.esc(u.status_before)})</span></h4>` +
      table(u.status.map((s) => row(s.value, s.p, o.happened && o.happened.statuses[u.id] === s.value ? "happened" : "")).join("")) +
      `</div>`).join("");
    const sides = o.happened
      ? `<h4>How unlikely was what happened</h4>` + table(o.happened.sides.map((s) =>
        row(`${s.side}: as bad or worse (net loss ${s.net_loss})`, s.at_least_as_bad)).join("") +
        row("exactly this outcome", o.happened.probability))
      : "";
    return `<p class="odds-method">Command ${o.command} (${bxb.esc(o.action)}), ${method}; choices ${bxb.esc(o.policy)}.</p>` +
      `<div class="odds-plot"></div><h4>Status after the command</h4>${units}${sides}`;
  }

  async function showOdds(button) {
    const row = button.closest(".ev");
    let box = row.querySelector(".odds");
    if (box) {
      box.remove();
      button.setAttribute("aria-expanded", "false");
      return;
    }
    row.insertAdjacentHTML("beforeend", `<div class="odds" aria-live="polite">computing the odds…</div>`);
    box = row.querySelector(".odds");
    button.setAttribute("aria-expanded", "true");
    try {
      const asked = `/api/battles/${battle}/odds?position=${row.dataset.position}`;
      // The full answer (exact where the graph fits the server's budget, else its samples) at
      // once; a first one (a few seeded samples drawn at once, its intervals stated) only if the
      // full one is not back within FIRST_AFTER (the server's desk starts that first answer with
      // the full one when it knows the command will be sampled: this ask then joins it).
      // Whichever comes first is shown: the first answer marked until the full one replaces it.
      let done = false;
      const later = setTimeout(() => {
        if (!box.isConnected) return; // closed again before then: nobody to show it to
        bxb.api("GET", `${asked}&first=true&samples=${FIRST_SAMPLES}`).then(({ data: first }) => {
          if (!done && box.isConnected) {
            box.innerHTML = oddsChart(first, "the full answer on the way…");
          }
        }, () => {}); // a first answer refused or lost: the full one is still awaited
      }, FIRST_AFTER);
      const { data } = await bxb.api("GET", asked).finally(() => {
        done = true;
        clearTimeout(later);
      });
      // closed while it was worked out (or closed and opened again: a box of its own asks):
      // nobody wants this answer's chart, nor its plot fetched
      if (!box.isConnected) return;
      box.innerHTML = oddsChart(data);
      // the same odds drawn by matplotlib on the server (web/plots.py): bars, what happened marked
      bxbPlots.show(box.querySelector(".odds-plot"), asked.replace("/odds?", "/odds/plot?"),
        `odds of command ${data.command}: each outcome's probability, what the dice gave in orange`);
    } catch (error) {
      if (box.isConnected) box.innerHTML = `<p class="error">${bxb.esc(error.message)}</p>`;
    }
  }

  // --- following the battle live -------------------------------------------------------------
  // The rows written after the battle's end as the page knows it (`of`) are asked for when a
  // note says it grew, and each time its live stream opens: the first time once the page is
  // shown, and after each reconnection. What was written between the page's answer and the
  // stream's opening (or while it was down) is told by no note. One fetch of the list at a time
  // (`serial`), each for the rows after the list's end as it then is, so no two answers add the
  // same row, whichever comes first; and `of` only grows, so an answer older than the page adds
  // nothing. A void among them strikes earlier rows through: the page is read afresh.
  const FULL = Number(body.dataset.mostRows); // rows a fetch may give: a full answer has more after it
  let told = 0; // the newest version a note told of
  const grown = (version, seal = false) => serial(async () => {
    for (;;) {
      const [, last] = held();
      const holds = last === of; // the list holds the battle's end: it grows there
      if (!holds && version !== null) {
        if (version > of) ends(version, seal); // the end is fetched when scrolled or stepped to
        return;
      }
      const html = await rowsAfter(of);
      if (html === null) return;
      const fetched = document.createElement("template");
      fetched.innerHTML = html;
      const rows = fetched.content.children;
      const count = rows.length; // the rows move into the list below
      if (fetched.content.querySelector(".ev-CommandVoided")) {
        reload();
        return;
      }
      const end = count ? Number(rows[count - 1].dataset.position) : 0;
      if (end <= of) return;
      const sealed = seal || fetched.content.querySelector(".ev-BattleSealed") !== null;
      if (holds && held()[1] === last) list.append(fetched.content);
      ends(end, sealed);
      if (count < FULL) return;
    }
  });
  function ends(end, sealed) {
    const atEnd = position === of;
    of = end;
    slider.max = of;
    $("of").textContent = of;
    $("of2").textContent = of;
    if (atEnd || sealed) go(of);
    else mark();
  }
  const listen = () => {
    const source = bxb.listen(`/api/battles/${battle}/stream`, (note) => {
      if (note.kind === "voided") {
        reload(); // earlier rows are struck through now: show the log afresh
        return;
      }
      if (note.version <= of) {
        if (note.kind === "sealed") location.reload();
        return;
      }
      if (note.version <= told) return; // already asked for
      told = note.version;
      grown(note.version, note.kind === "sealed");
    }, $("live"));
    source.addEventListener("open", () => grown(null));
  };

  $("verify").addEventListener("click", async () => {
    const box = $("verify-result");
    box.textContent = "verifying…";
    divergent = 0;
    mark(false);
    try {
      const { data } = await bxb.api("GET", `/api/battles/${battle}/verify`);
      if (data.ok) {
        box.innerHTML = `<p class="ok">verify OK: ${data.events} events, ${data.commands} commands re-adjudicated` +
          `${data.dice_checked ? `, ${data.dice_checked} seeded dice recomputed` : ""}, hash chain intact</p>` +
          data.notes.map((n) => `<p class="muted">${bxb.esc(n)}</p>`).join("");
      } else {
        const p = data.problem;
        box.innerHTML = `<p class="bad">verify FAILED at position <a href="/battles/${battle}/at/${p.position}" id="divergence-link">${p.position}</a>: ${bxb.esc(p.message)}` +
          `${p.citation ? ` [${bxb.esc(p.citation)}]` : ""}</p>` +
          (p.recorded || p.expected ? `<pre>log says:   ${bxb.esc(p.recorded)}\nrules give: ${bxb.esc(p.expected)}</pre>` : "");
        divergent = p.position; // marked once its row is held
        go(p.position);
      }
    } catch (error) {
      box.textContent = error.message;
    }
  });

  const sideBySide = (data) => {
    const d = data.divergence;
    if (d === null) return `<p class="ok">No divergence: every event is the same under these rulings.</p>`;
    const last = Math.max(data.original.length, data.alternative.length);
    const rows = [];
    for (let q = Math.max(2, d - 2); q <= Math.min(last, d + 6); q++) {
      const a = data.original[q - 1];
      const b = data.alternative[q - 1];
      const cell = (r) => r ? `${bxb.esc(r.text)}${r.citation ? ` <span class="cite">${bxb.esc(r.citation)}</span>` : ""}` : "<em>(ends)</em>";
      rows.push(`<tr class="${q >= d ? "diverged" : ""}"><td>${q}</td><td>${cell(a)}</td><td>${cell(b)}</td></tr>`);
    }
    return `<p>First divergence at position <strong id="whatif-divergence">${d}</strong>.</p>` +
      `<table class="side"><thead><tr><th>#</th><th>original</th><th>what-if</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
  };

  const reruns = bxb.asking(); // the what-if asked last: an earlier one answered after it is dropped
  async function whatIf(save) {
    const ticket = reruns.ask();
    const form = $("whatif-form");
    const rulings = {};
    let ruleset = null;
    form.querySelectorAll("select").forEach((s) => {
      if (s.name === "__ruleset") ruleset = s.value;
      else rulings[s.name] = s.value;
    });
    const box = $("whatif-result");
    box.textContent = "re-running…";
    try {
      const { data } = await bxb.api("POST", `/api/battles/${battle}/whatif`, { rulings, ruleset, save });
      if (!ticket.latest()) return;
      box.innerHTML = sideBySide(data) +
        (data.stopped ? `<p class="bad">stopped: ${bxb.esc(data.stopped)}</p>` : "") +
        (data.fresh_dice.length ? `<p class="muted">dice drawn from the seed: ${bxb.esc(data.fresh_dice.join(", "))}</p>` : "") +
        `<div class="split"><div><h3>original, at the end</h3><pre>${bxb.esc(data.original_state)}</pre></div>` +
        `<div><h3>what-if, at the end</h3><pre>${bxb.esc(data.alternative_state)}</pre></div></div>` +
        (data.saved ? `<p>Saved as <a id="whatif-saved" href="/battles/${data.saved}">battle ${data.saved.slice(0, 8)}</a>.</p>` : "");
    } catch (error) {
      if (ticket.latest()) box.textContent = error.message;
    }
  }
  if ($("whatif-form")) {
    $("whatif-form").addEventListener("submit", (event) => { event.preventDefault(); whatIf(false); });
    $("whatif-save").addEventListener("click", () => whatIf(true));
  }

  const voidForm = $("void-form");
  if (voidForm) {
    voidForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        await bxb.api("POST", `/api/battles/${battle}/void`, {
          command: Number(body.dataset.lastCommand), reason: $("void-reason").value, version: of,
        });
        reload();
      } catch (error) {
        $("void-error").textContent = error.message;
      }
    });
  }

  // Two battles as `bxb diff` compares them: the starts, then play to the first step that differs.
  function diffTable(data) {
    const start = `<ul class="diff-start">${data.start.map((l) => `<li>${bxb.esc(l)}</li>`).join("")}</ul>`;
    if (data.divergence === null) {
      return start + `<p class="ok">play: identical (${data.a_events} and ${data.b_events} events)</p>`;
    }
    const cell = (r) => r ? bxb.esc(r.text) : "<em>(the battle ends before this)</em>";
    return start + `<p>Play first differs at position <strong id="diff-divergence">${data.a_position}</strong> of this battle, ` +
      `<strong id="diff-divergence-b">${data.b_position}</strong> of the other (this battle has ${data.a_events} events, the other ${data.b_events}).</p>` +
      `<table class="side"><thead><tr><th>this battle</th><th>the other</th></tr></thead><tbody><tr class="diverged"><td>${cell(data.a_row)}</td><td>${cell(data.b_row)}</td></tr></tbody></table>`;
  }

  const compared = bxb.asking(); // the diff asked last: an earlier one answered after it is dropped
  $("diff-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const ticket = compared.ask();
    const other = $("diff-other").value;
    const box = $("diff-result");
    if (!other) { box.textContent = "no other battle in the store"; return; }
    try {
      const { data } = await bxb.api("GET", `/api/diff?a=${battle}&b=${other}`);
      if (ticket.latest()) box.innerHTML = diffTable(data);
    } catch (error) {
      if (ticket.latest()) box.textContent = error.message;
    }
  });

  if ($("seal")) {
    $("seal").addEventListener("click", async () => {
      const box = $("seal-result");
      try {
        const { data } = await bxb.api("POST", `/api/battles/${battle}/seal`);
        box.innerHTML = `<p class="ok" id="sealed">sealed at position ${data.position}: checkpoint over ${data.length} events, last hash ${data.last_hash.slice(0, 16)}…, signed by ${data.public_key.slice(0, 16)}…</p>`;
        $("seal").remove();
        $("status").textContent = "sealed";
        $("status").className = "badge s-sealed";
      } catch (error) {
        box.textContent = error.message;
      }
    });
  }
  // The page came with its rows marked and only a few before its position (web/window.py), its
  // row in sight: nothing here forces a layout before the first paint. In the first frame, keep
  // the row in sight (a narrow screen's taller rows); once it is on screen, fetch the rows before
  // it (a hundred rows to lay out, and the server's answer, would otherwise race its first paint).
  requestAnimationFrame(() => mark());
  bxb.afterPaint(() => {
    listen();
    earlier();
    later(); // the page came with a score of rows: the next hundred, before the judge scrolls
  });
})();
