// The table page: start a battle, give each side's value to fair dice, pick the next command
// from the legal ones, type the dice with big buttons as they are rolled, answer choices, void
// the last command with a reason. Nothing is written until a command is complete; then the page
// shows its steps and the server's receipt (the server renders them).
"use strict";
(() => {
  const body = document.body;
  const slug = body.dataset.tournament;
  const table = Number(body.dataset.table);
  const battle = body.dataset.battle || "";
  let version = Number(body.dataset.version || 0);
  const $ = (id) => document.getElementById(id);
  let reloading = false;
  const reload = () => {
    if (!reloading) {
      reloading = true;
      location.reload();
    }
  };

  // Another phone (or the judge) wrote: show the battle as it stands now. While this page's own
  // command is on its way, a note of a later version waits for the answer: it may be that
  // command's own note, heard before the answer came.
  let sending = false;
  const sent = bxb.asking(); // the command sent last: an earlier answer (dice typed ahead of it) is dropped
  let heard = 0;
  bxb.listen(`/api/tournaments/${slug}/tables/${table}/stream`, (note) => {
    if (note.battle !== battle || note.kind !== "played") reload();
    else if (note.version > version && sending) heard = Math.max(heard, note.version);
    else if (note.version > version) reload();
  }, $("live"));

  const form = $("start-form");
  if (form) {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const data = new FormData(form);
      const request = { ruleset: data.get("ruleset"), round: Number(data.get("round")) || 1 };
      if (data.get("label")) request.label = data.get("label");
      if (data.get("dice") === "seeded") {
        let seed = data.get("seed");
        if (!seed) {
          const bytes = crypto.getRandomValues(new Uint8Array(8));
          seed = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
        }
        request.seed = seed;
      } else if (data.get("dice") === "fair") {
        request.fair = true;
      }
      try {
        await bxb.api("POST", `/api/tournaments/${slug}/tables/${table}/battles`, request);
        reload();
      } catch (error) {
        $("start-error").textContent = error.message;
      }
    });
  }
  if (!battle) return;

  const finish = $("finish");
  if (finish) {
    finish.addEventListener("click", async () => {
      try {
        await bxb.api("POST", `/api/battles/${battle}/finish`);
        reload();
      } catch (error) {
        $("play-error").textContent = error.message;
      }
    });
  }

  // Fair dice: each side's value, given before the first command.
  const fairForm = $("fair-form");
  if (fairForm) {
    fairForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      const contributions = {};
      fairForm.querySelectorAll("input[data-side]").forEach((i) => { contributions[i.dataset.side] = i.value; });
      try {
        await bxb.api("POST", `/api/battles/${battle}/contributions`, { contributions });
        reload();
      } catch (error) {
        $("fair-error").textContent = error.message;
      }
    });
  }

  // A correction: the last command that stands is voided, with the reason (nothing is deleted).
  // Listened for on the page: the form is put in place again after each command written.
  document.addEventListener("submit", async (event) => {
    if (event.target.id !== "void-form") return;
    event.preventDefault();
    try {
      await bxb.api("POST", `/api/battles/${battle}/void`, {
        command: Number(body.dataset.lastCommand), reason: $("void-reason").value, version,
      });
      reload();
    } catch (error) {
      $("void-error").textContent = error.message;
    }
  });

  const legalData = $("legal-data");
  if (!legalData) return;
  let legal = JSON.parse(legalData.textContent);
  let again = JSON.parse($("again-data").textContent);
  let pending = null; // the command being put together: option, picks, dice, choices
  let roll = []; // the dice of the roll being typed

  function choose(index) {
    const option = legal[index];
    pending = { option: index, picks: {}, dice: [], choices: {} };
    document.querySelectorAll(".option").forEach((b) => b.classList.toggle("chosen", Number(b.dataset.index) === index));
    const many = Object.entries(option.options || {}).filter(([, values]) => values.length > 1);
    const picks = $("picks");
    if (!many.length) {
      picks.hidden = true;
      send();
      return;
    }
    picks.innerHTML = many.map(([name, values]) =>
      `<label>${bxb.esc(name)} <select data-pick="${bxb.esc(name)}">${values.map((v) =>
        `<option>${bxb.esc(v)}</option>`).join("")}</select></label>`).join("") +
      `<button class="btn big" id="play-option">Play</button>`;
    picks.hidden = false;
    picks.scrollIntoView({ block: "start" });
    $("play-option").addEventListener("click", () => {
      picks.querySelectorAll("select").forEach((s) => { pending.picks[s.dataset.pick] = s.value; });
      picks.hidden = true;
      send();
    });
  }

  // Once dice or choices were typed, a complete command comes back for review (nothing
  // written); "Write it" sends it again to be written, as `bxb play` asks before recording.
  async function send(write = false) {
    $("play-error").textContent = "";
    const typed = pending.dice.length > 0 || Object.keys(pending.choices).length > 0;
    sending = true;
    const ticket = sent.ask();
    try {
      const { status, data } = await bxb.api("POST", `/api/battles/${battle}/commands`, {
        version, option: pending.option, picks: pending.picks, dice: pending.dice,
        choices: pending.choices, ask: true, review: typed && !write, page: true,
      });
      if (status === 201) {
        if (!written(data)) reload();
        return;
      }
      if (!ticket.latest()) return; // a die typed since: the question is the later answer's
      if (data.status === "review") review(data);
      else ask(data.need);
    } catch (error) {
      if (!ticket.latest()) return;
      $("play-error").textContent = error.message;
      if (error.status === 409) setTimeout(reload, 1500);
    } finally {
      if (ticket.latest()) sending = false;
      if (!sending && heard > version) reload(); // another phone wrote while this one asked: as it stands now
    }
  }

  // The command written: the answer carries the page's parts as they stand now (rendered by the
  // page's own templates) and the commands on offer next; they are put in place, and the page
  // is not loaded again. False (then the page loads again) when more changed than these parts:
  // the battle's first command (correcting it becomes possible), the rules offering no
  // further command, another phone having written meanwhile.
  function written(data) {
    const parts = data.page;
    if (!parts || !data.next || !data.next.options.length || !$("void-box")) return false;
    if (heard > data.version) return false;
    version = data.version;
    body.dataset.version = String(version);
    body.dataset.lastCommand = String(data.events.find((r) => r.type === "CommandIssued").command);
    $("version").textContent = String(version);
    const flag = $("flag-form"); // a flag's form opened on a row of #last: kept, out of it
    if (flag && $("last").contains(flag)) {
      flag.hidden = true;
      $("last").before(flag);
    }
    $("last").outerHTML = parts.last;
    $("whole-log").insertAdjacentHTML("beforeend", $("last").querySelector(".log").innerHTML);
    $("void-box").outerHTML = parts.void;
    $("receipt-box").outerHTML = parts.receipt;
    $("state").outerHTML = parts.state;
    $("log-count").textContent = String(version);
    $("options").innerHTML = parts.options;
    legal = data.next.options;
    again = {};
    cancel();
    // what the command asked, as a fresh page has it: nothing (the command is in #last now)
    for (const id of ["review-rows", "picks", "dice-slots", "dice-pad", "choice-pad"]) $(id).innerHTML = "";
    document.dispatchEvent(new CustomEvent("bxb:written")); // disputes.js: flags on the new rows
    return true;
  }

  function asked(box) {
    $("need").dataset.asked = String(Number($("need").dataset.asked || 0) + 1); // the questions asked so far: what a test waits on
    box.scrollIntoView({ block: "start" }); // the next thing to do, on screen
  }

  function review(data) {
    $("need").hidden = true;
    const issued = data.events.find((r) => r.type === "CommandIssued");
    $("review-prompt").textContent =
      `Check command ${issued ? issued.command : ""} before it is written: the dice typed ` +
      `${pending.dice.join(" ") || "(none)"}, and what they do:`;
    $("review-rows").innerHTML = data.events.map((r) =>
      `<li class="ev ev-${bxb.esc(r.type)}"><span class="pos">${r.position}</span>` +
      `<span class="text">${bxb.esc(r.text)}</span></li>`).join("");
    $("review").hidden = false;
    asked($("review"));
  }

  function ask(need) {
    $("review").hidden = true;
    $("need").hidden = false;
    $("options").classList.add("dim");
    $("need-prompt").textContent = need.prompt;
    roll = [];
    const dicePad = $("dice-pad");
    const choicePad = $("choice-pad");
    dicePad.innerHTML = "";
    choicePad.innerHTML = "";
    $("undo-die").hidden = need.kind !== "dice";
    if (need.kind === "dice") {
      const faces = Array.from({ length: need.sides }, (_, i) => i + 1);
      dicePad.innerHTML = faces.map((f) => `<button class="die" data-face="${f}">${f}</button>`).join("");
      dicePad.querySelectorAll(".die").forEach((b) => b.addEventListener("click", () => {
        roll.push(Number(b.dataset.face));
        slots(need);
        if (roll.length === need.n) {
          pending.dice.push(...roll);
          roll = [];
          send();
        }
      }));
      slots(need);
      offerAgain(need);
    } else {
      $("again").hidden = true;
      choicePad.innerHTML = need.options.map((o) =>
        `<button class="btn big answer" data-answer="${bxb.esc(o)}">${bxb.esc(o)}${o === need.default ? " (default)" : ""}</button>`).join("");
      // The questions the default leads to came with this one (`then`): while the players take
      // each default, the next is asked here, and all go with the roll that ends them.
      const then = need.then || [];
      choicePad.querySelectorAll(".answer").forEach((b) => b.addEventListener("click", () => {
        pending.choices[need.key] = b.dataset.answer;
        if (b.dataset.answer === need.default && then.length) ask({ ...then[0], then: then.slice(1) });
        else send();
      }));
    }
    asked($("need"));
  }

  // A voided command's dice, offered again roll by roll (the terminal offers them with Enter).
  function offerAgain(need) {
    const values = again[need.key];
    const button = $("again");
    button.hidden = !(values && values.length === need.n);
    if (button.hidden) return;
    button.textContent = `The voided command's dice: ${values.join(" ")}`;
    button.onclick = () => {
      pending.dice.push(...values);
      roll = [];
      send();
    };
  }

  function slots(need) {
    $("dice-slots").innerHTML = Array.from({ length: need.n }, (_, i) =>
      `<span class="slot${i < roll.length ? " filled" : ""}">${i < roll.length ? roll[i] : "·"}</span>`).join("");
    $("undo-die").onclick = () => { roll.pop(); slots(need); };
  }

  $("options").addEventListener("click", (event) => {
    const b = event.target.closest(".option");
    if (b && !pending) choose(Number(b.dataset.index));
  });
  $("write").addEventListener("click", () => send(true));
  $("retype").addEventListener("click", () => {
    pending.dice = [];
    pending.choices = {};
    $("review").hidden = true;
    send();
  });
  const cancel = () => {
    pending = null;
    roll = [];
    $("review").hidden = true;
    $("need").hidden = true;
    $("picks").hidden = true;
    $("options").classList.remove("dim");
    document.querySelectorAll(".option").forEach((b) => b.classList.remove("chosen"));
  };
  $("cancel").addEventListener("click", cancel);
  $("review-cancel").addEventListener("click", cancel);
})();
